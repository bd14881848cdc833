/** The theme a person chose: the system's (prefers-color-scheme), or one of the two. */
export type ThemeChoice = 'system' | 'light' | 'dark'

const KEY = 'burrow-theme'

export function storedTheme(storage: Pick<Storage, 'getItem'> = localStorage): ThemeChoice {
  const value = storage.getItem(KEY)
  return value === 'light' || value === 'dark' ? value : 'system'
}

/** Sets the choice on the document (the stylesheet reads `data-theme`) and keeps it for the next visit. */
export function applyTheme(choice: ThemeChoice, root: HTMLElement = document.documentElement, storage: Storage = localStorage): void {
  if (choice === 'system') {
    delete root.dataset.theme
    storage.removeItem(KEY)
  } else {
    root.dataset.theme = choice
    storage.setItem(KEY, choice)
  }
}

/** The next choice of the toggle: system, then light, then dark. */
export function nextTheme(choice: ThemeChoice): ThemeChoice {
  return choice === 'system' ? 'light' : choice === 'light' ? 'dark' : 'system'
}
