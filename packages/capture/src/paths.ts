/** The capture endpoints real clients use, each with and without the trailing slash. */
export const CAPTURE_PATHS: readonly string[] = ['/capture', '/batch', '/e', '/i/v0/e', '/track', '/engage'].flatMap((p) => [p, `${p}/`])

const capturePaths = new Set(CAPTURE_PATHS)

export function isCapturePath(path: string): boolean {
  return capturePaths.has(path)
}
