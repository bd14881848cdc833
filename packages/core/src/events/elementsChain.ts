import type { Element } from '@burrow/contracts'

// PostHog's elements_chain grammar: elements separated by `;`, each `tag.class1.class2:` followed
// by `key="value"` attributes (text, href, attr_id, nth-child, nth-of-type, attr__<name>).
const ELEMENT_SPLIT = /(?:[^\s;"]|"(?:\\.|[^"])*")+/g
const CLASSES_AND_ATTRIBUTES = /^(.*?)($|:([a-zA-Z\-_0-9]*=.*))/
const ATTRIBUTE = /(.*?)="(.*?[^\\])"/g

/** Parses an autocapture elements_chain into the element list the events API returns. */
export function elementsFromChain(chain: string): Element[] {
  if (!chain) return []
  const elements: Element[] = []
  for (const [index, [text]] of [...chain.matchAll(ELEMENT_SPLIT)].entries()) {
    const match = CLASSES_AND_ATTRIBUTES.exec(text)
    const tagAndClasses = (match?.[1] ?? '').split('.')
    const element: Element = {
      event: null,
      text: null,
      tag_name: text.startsWith('.') ? null : (tagAndClasses[0] ?? null) || null,
      attr_class: tagAndClasses.length > 1 ? tagAndClasses.slice(1).filter(Boolean) : null,
      href: null,
      attr_id: null,
      nth_child: null,
      nth_of_type: null,
      attributes: {},
      order: index,
    }
    for (const [, rawKey = '', value = ''] of (match?.[3] ?? '').matchAll(ATTRIBUTE)) {
      const key = rawKey.replace(/^:/, '')
      if (key === 'text') element.text = value
      else if (key === 'href') element.href = value
      else if (key === 'attr_id') element.attr_id = value
      else if (key === 'nth-child') element.nth_child = Number.parseInt(value, 10)
      else if (key === 'nth-of-type') element.nth_of_type = Number.parseInt(value, 10)
      else if (key.startsWith('attr__')) element.attributes[key] = value
    }
    elements.push(element)
  }
  return elements
}
