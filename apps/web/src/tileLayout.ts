/**
 * A dashboard's arrangement as PostHog keeps it: each tile's `layouts.sm` place on a 12-column
 * grid, read top to bottom, then left to right. The console lays tiles out two to a row, so a new
 * order is written as those places.
 */
const COLUMNS = 2
const WIDTH = 12 / COLUMNS
const HEIGHT = 5

/** The tile ids with the one at `from` moved to `to`; the others keep their order. */
export function moveTile(ids: readonly number[], from: number, to: number): number[] {
  if (from === to || from < 0 || to < 0 || from >= ids.length || to >= ids.length) return [...ids]
  const next = [...ids]
  const [moved] = next.splice(from, 1)
  next.splice(to, 0, moved!)
  return next
}

/** The `tiles` of a dashboard PATCH that lays the tiles out in this order. */
export function layoutsInOrder(ids: readonly number[]): { id: number; layouts: Record<string, unknown> }[] {
  return ids.map((id, i) => {
    const x = (i % COLUMNS) * WIDTH
    const y = Math.floor(i / COLUMNS) * HEIGHT
    return { id, layouts: { sm: { x, y, w: WIDTH, h: HEIGHT }, xs: { x: 0, y: i * HEIGHT, w: 1, h: HEIGHT } } }
  })
}
