import { parentPort, workerData } from 'node:worker_threads'
import createHogQLParser, { type HogQLParser } from '@posthog/hogql-parser'
import type { ParseAnswer, ParseRequest, ParserThreadData, ParserThreadMessage } from './parserProtocol'

/**
 * A parser thread: runs `@posthog/hogql-parser` away from the thread that serves every tenant,
 * one parse at a time. An instance that threw or answered an error is never used again: a
 * WebAssembly stack overflow corrupts the instance's memory without always trapping, and a
 * corrupt instance hangs or garbles later parses. Nor is one kept past `maxParserBytes`: the
 * parser caches what it learns of each new shape of query, and its memory never shrinks.
 */
const data = workerData as ParserThreadData
const port = parentPort!

// A query of the usual shape, parsed by each new instance before it is needed: the first parses
// of an instance are several times slower than later ones.
const WARM_UP =
  "SELECT event, count() AS c FROM events WHERE timestamp > now() - INTERVAL 7 DAY AND properties.$browser = 'x' GROUP BY event ORDER BY c DESC LIMIT 10"

let parser: Promise<HogQLParser> | undefined

function freshParser(): Promise<HogQLParser> {
  parser = createHogQLParser().then((p) => {
    p.parseSelect(WARM_UP)
    return p
  })
  return parser
}

function parse(p: HogQLParser, request: ParseRequest): string {
  switch (request.kind) {
    case 'select':
      return p.parseSelect(request.text)
    case 'expr':
      return p.parseExpr(request.text)
    case 'order':
      return p.parseOrderExpr(request.text)
  }
}

/** The parser's error object, told apart without parsing the JSON here: its keys are sorted, and no tree node has an `error` key. */
const isErrorJson = (json: string) => /^\{"end":\{[^{}]*\},"error":true/.test(json)

port.on('message', (request: ParseRequest) => {
  void (async () => {
    let answer: ParseAnswer
    let discard: boolean
    try {
      const json = parse(await (parser ?? freshParser()), request)
      answer = { id: request.id, json }
      discard = isErrorJson(json) || process.memoryUsage().external > data.maxParserBytes
    } catch (err: unknown) {
      answer = { id: request.id, threw: err instanceof Error ? `${err.name}: ${err.message}` : String(err) }
      discard = true
    }
    port.postMessage(answer satisfies ParserThreadMessage)
    // The next instance is made while the thread would otherwise wait, so the next parse does not wait for it.
    if (discard) void freshParser().catch(() => (parser = undefined))
  })()
})

// Loaded before the thread says it is ready, so that a parse's deadline counts the parse alone.
await freshParser()
port.postMessage({ ready: true } satisfies ParserThreadMessage)
