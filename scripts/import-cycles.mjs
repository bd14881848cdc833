// Fails when a module of the workspace reaches itself through its relative imports (type-only
// imports included): a circle hides which file is the lower floor and makes what a module means
// depend on the order modules load in. Each package's and app's sources are checked on their
// own (packages reach each other only through their exports, which lint and knip check).
import { readdirSync, readFileSync, statSync } from 'node:fs'
import path from 'node:path'

const ROOT = path.resolve(import.meta.dirname, '..')
const SOURCE = /\.(ts|tsx)$/
const TEST = /\.test\.(ts|tsx)$/
const IMPORT = /(?:^|\s)(?:import|export)\s[^'"]*?from\s*['"](\.{1,2}\/[^'"]+)['"]|import\(\s*['"](\.{1,2}\/[^'"]+)['"]\s*\)/g

function sourcesUnder(dir) {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const file = path.join(dir, entry.name)
    if (entry.isDirectory()) return entry.name === 'node_modules' ? [] : sourcesUnder(file)
    return SOURCE.test(entry.name) && !TEST.test(entry.name) ? [file] : []
  })
}

function resolveImport(from, specifier) {
  const target = path.resolve(path.dirname(from), specifier)
  for (const candidate of [target, `${target}.ts`, `${target}.tsx`, path.join(target, 'index.ts'), path.join(target, 'index.tsx')]) {
    try {
      if (statSync(candidate).isFile()) return candidate
    } catch {
      // Not this one: the next candidate.
    }
  }
  return undefined
}

/** The strongly connected groups of more than one module (Tarjan's algorithm), and modules that import themselves. */
function circles(graph) {
  let counter = 0
  const index = new Map()
  const low = new Map()
  const stack = []
  const onStack = new Set()
  const found = []
  const visit = (node) => {
    index.set(node, counter)
    low.set(node, counter++)
    stack.push(node)
    onStack.add(node)
    for (const next of graph.get(node) ?? []) {
      if (!index.has(next)) {
        visit(next)
        low.set(node, Math.min(low.get(node), low.get(next)))
      } else if (onStack.has(next)) low.set(node, Math.min(low.get(node), index.get(next)))
    }
    if (low.get(node) !== index.get(node)) return
    const group = []
    for (let member; member !== node;) {
      member = stack.pop()
      onStack.delete(member)
      group.push(member)
    }
    if (group.length > 1 || graph.get(node)?.has(node)) found.push(group)
  }
  for (const node of graph.keys()) if (!index.has(node)) visit(node)
  return found
}

const roots = ['apps', 'packages'].flatMap((floor) =>
  readdirSync(path.join(ROOT, floor))
    .map((name) => path.join(ROOT, floor, name, 'src'))
    .filter((dir) => statSync(dir, { throwIfNoEntry: false })?.isDirectory()),
)
let failed = false
for (const root of roots) {
  const graph = new Map()
  for (const file of sourcesUnder(root)) {
    const imports = new Set()
    for (const match of readFileSync(file, 'utf8').matchAll(IMPORT)) {
      const resolved = resolveImport(file, match[1] ?? match[2])
      if (resolved) imports.add(resolved)
    }
    graph.set(file, imports)
  }
  for (const group of circles(graph)) {
    failed = true
    const names = group.map((file) => path.relative(ROOT, file)).sort()
    console.error(`import circle of ${names.length} module(s): ${names.join(', ')}`)
  }
}
if (failed) {
  console.error('Break each circle: move what both sides need into a module of its own, or hand it in as a parameter.')
  process.exit(1)
}
console.log(`no import circles in ${roots.length} source trees`)
