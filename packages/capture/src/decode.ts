import { gunzipSync, inflateSync } from 'node:zlib'
import { problems } from '@burrow/contracts'
import { decompressLz64 } from './lz64'

export interface EncodedRequest {
  body: Buffer
  /** Lower-cased content type without parameters. */
  contentType: string
  contentEncoding: string
  query: URLSearchParams
}

export interface DecodeLimits {
  maxDecompressedBytes: number
}

export interface DecodedPayload {
  text: string
  /** Fields of a urlencoded form body other than `data` (for `api_key`, `project_id`...). */
  form: URLSearchParams | undefined
}

type Compression = 'gzip' | 'lz64' | 'base64' | 'deflate' | undefined

function compressionFrom(hint: string | null | undefined): Compression {
  switch (hint?.trim().toLowerCase()) {
    case 'gzip':
    case 'gzip-js':
      return 'gzip'
    case 'lz64':
    case 'lz-string':
      return 'lz64'
    case 'base64':
    case 'b64':
      return 'base64'
    case 'deflate':
      return 'deflate'
    default:
      return undefined
  }
}

const isGzip = (b: Buffer) => b.length >= 2 && b[0] === 0x1f && b[1] === 0x8b
const BASE64_TEXT = /^[A-Za-z0-9+/=\s_-]+$/
const FORM_START = /^(?:data|compression|ver|_|ip|api_key|token|project_id)=/

function looksLikeForm(body: Buffer): boolean {
  return FORM_START.test(body.subarray(0, 128).toString('latin1'))
}

function gunzip(bytes: Buffer, limits: DecodeLimits, inflate = false): Buffer {
  try {
    const options = { maxOutputLength: limits.maxDecompressedBytes }
    return inflate ? inflateSync(bytes, options) : gunzipSync(bytes, options)
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ERR_BUFFER_TOO_LARGE') throw problems.tooLarge('The decompressed payload')
    throw problems.malformed(`could not decompress the body (${(err as Error).message})`, { cause: err })
  }
}

function base64Decode(text: string): Buffer {
  // Form decoding turns `+` into spaces; URL-safe alphabets use - and _.
  return Buffer.from(text.trim().replace(/ /g, '+'), 'base64')
}

function startsLikeJson(text: string): boolean {
  const first = text.trimStart()[0]
  return first === '{' || first === '['
}

/**
 * The JSON text of a capture request, whatever way the client packed it: plain JSON, a
 * urlencoded form with `data=`, base64, gzip (hinted or recognised by its magic bytes, as
 * posthog-js sends it with no hint at all), deflate, or lz-string's base64.
 */
export function decodePayload(req: EncodedRequest, limits: DecodeLimits): DecodedPayload {
  let bytes = req.body
  let form: URLSearchParams | undefined
  let hint = compressionFrom(req.query.get('compression'))

  // What server-side libraries send, and most requests: plain JSON, no compression named.
  if ((bytes[0] === 0x7b || bytes[0] === 0x5b) && hint === undefined && compressionFrom(req.contentEncoding) === undefined) {
    const text = bytes.toString('utf8')
    if (text.length > limits.maxDecompressedBytes) throw problems.tooLarge('The decompressed payload')
    return { text, form: undefined }
  }

  if (bytes.length === 0) {
    const data = req.query.get('data')
    if (!data) throw problems.noData()
    bytes = Buffer.from(data, 'latin1')
  } else if (
    !isGzip(bytes) &&
    !startsLikeJson(bytes.subarray(0, 64).toString('latin1')) &&
    (req.contentType === 'application/x-www-form-urlencoded' || looksLikeForm(bytes))
  ) {
    // A form (`data=...`); JSON sent with a form content type, as `curl -d` does, is read as JSON.
    form = new URLSearchParams(bytes.toString('latin1'))
    const data = form.get('data')
    if (data === null || data === '') throw problems.noData()
    hint ??= compressionFrom(form.get('compression'))
    bytes = Buffer.from(data, 'latin1')
    // A form's `data` is base64 unless the hint says otherwise.
    if (hint === undefined && BASE64_TEXT.test(data)) hint = 'base64'
  }
  hint ??= compressionFrom(req.contentEncoding)

  let decoded: Buffer | string
  if (hint === 'lz64') {
    const text = decompressLz64(bytes.toString('latin1').replace(/ /g, '+'), limits.maxDecompressedBytes)
    if (!text) throw problems.malformed('could not decompress the lz64 payload')
    decoded = text
  } else if (hint === 'base64') {
    decoded = base64Decode(bytes.toString('latin1'))
  } else if (hint === 'deflate') {
    decoded = gunzip(bytes, limits, true)
  } else {
    decoded = bytes
  }
  // gzip is recognised by its magic bytes, hinted or not, and also after base64.
  // A `gzip` hint on a body that is not gzip (some clients send it on plain text) is ignored.
  if (typeof decoded !== 'string' && isGzip(decoded)) decoded = gunzip(decoded, limits)

  let text = typeof decoded === 'string' ? decoded : decoded.toString('utf8')
  if (!startsLikeJson(text) && BASE64_TEXT.test(text.slice(0, 1024))) {
    // Legacy clients base64 the JSON without saying so (PostHog always tries this).
    const again = base64Decode(text)
    text = isGzip(again) ? gunzip(again, limits).toString('utf8') : again.toString('utf8')
  }
  if (text.length > limits.maxDecompressedBytes) throw problems.tooLarge('The decompressed payload')
  return { text, form }
}

/** The body of an HTTP request decoded as decodePayload does, reading the hints from its headers. */
export function decodeRequestBody(
  req: { body: Buffer; headers: Record<string, string>; query: URLSearchParams },
  limits: DecodeLimits,
): DecodedPayload {
  return decodePayload(
    {
      body: req.body,
      contentType: (req.headers['content-type'] ?? '').split(';')[0]!.trim().toLowerCase(),
      contentEncoding: req.headers['content-encoding'] ?? '',
      query: req.query,
    },
    limits,
  )
}
