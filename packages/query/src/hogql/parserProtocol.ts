/** What a parser thread is started with. */
export interface ParserThreadData {
  /** From the sources: the module the bootstrap imports once it has registered TypeScript. */
  entry: string | undefined
  /** Past this much memory outside the JavaScript heap (the parser's WebAssembly memory, which never shrinks), the thread starts a new parser. */
  maxParserBytes: number
}

export type ParseKind = 'select' | 'expr' | 'order'

/** A parse the main thread asks of a parser thread. */
export interface ParseRequest {
  id: number
  kind: ParseKind
  text: string
}

/**
 * A parser thread's answer: the parser's JSON (a tree, or the parser's own error object), or
 * `threw` when the parser threw instead (a WebAssembly trap: its stack overflowed or its memory
 * was corrupt).
 */
export type ParseAnswer = { id: number; json: string } | { id: number; threw: string }

/** What a parser thread posts: that its parser is loaded, then an answer to each request. */
export type ParserThreadMessage = { ready: true } | ParseAnswer
