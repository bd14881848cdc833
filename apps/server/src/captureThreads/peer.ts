import type { Transferable } from 'node:worker_threads'

/** Either end of a worker's message channel: the Worker object, or the worker's parentPort. */
export interface MessageEnd {
  postMessage(value: unknown, transferList?: readonly Transferable[]): void
  on(event: 'message', listener: (value: unknown) => void): unknown
}

/** What one side of a channel offers the other; a call's answer may be a promise. */
// The arguments are whatever the other side sent: each handler states the types it was written for.
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type Handlers = Record<string, (...args: any[]) => unknown>

type Message =
  | { kind: 'call'; id: number; method: string; args: unknown[] }
  | { kind: 'notify'; method: string; args: unknown[] }
  | { kind: 'reply'; id: number; ok: true; value: unknown }
  | { kind: 'reply'; id: number; ok: false; error: string; code?: string }

export interface Peer {
  /** Runs `method` on the other side; resolves with its answer, rejects with its error. */
  call<T>(method: string, ...args: unknown[]): Promise<T>
  /** Runs `method` on the other side without waiting for an answer; `transfer` moves buffers instead of copying them. */
  notify(method: string, args: unknown[], transfer?: readonly Transferable[]): void
  /** Refuses the calls still waiting for an answer (the other side is gone). */
  fail(reason: string): void
}

/**
 * Calls between the main thread and a capture thread over their message channel. Messages of
 * one channel arrive in the order they were sent, so a notification sent before an answer is
 * handled before it.
 */
export function connectPeer(end: MessageEnd, handlers: Handlers, log: (msg: string) => void): Peer {
  const waiting = new Map<number, { resolve: (value: unknown) => void; reject: (err: Error) => void }>()
  let nextId = 1

  const reply = (id: number, run: () => unknown) => {
    Promise.resolve()
      .then(run)
      .then(
        (value) => end.postMessage({ kind: 'reply', id, ok: true, value } satisfies Message),
        (err: unknown) => {
          // The code crosses too: it tells the other side what failed (a store that is down is a 503, not a 500).
          const code = (err as { code?: unknown })?.code
          const error = (err as Error)?.message ?? String(err)
          end.postMessage({ kind: 'reply', id, ok: false, error, ...(typeof code === 'string' ? { code } : {}) } satisfies Message)
        },
      )
      .catch((err: unknown) =>
        end.postMessage({ kind: 'reply', id, ok: false, error: `the answer could not be sent: ${String(err)}` } satisfies Message),
      )
  }

  end.on('message', (value) => {
    const message = value as Message
    if (message.kind === 'reply') {
      const call = waiting.get(message.id)
      waiting.delete(message.id)
      if (message.ok) call?.resolve(message.value)
      else call?.reject(Object.assign(new Error(message.error), message.code === undefined ? {} : { code: message.code }))
      return
    }
    const handler = handlers[message.method]
    if (message.kind === 'call') {
      reply(message.id, () => {
        if (!handler) throw new Error(`no such method: ${message.method}`)
        return handler(...message.args)
      })
      return
    }
    try {
      if (!handler) throw new Error('no such method')
      const done = handler(...message.args)
      if (done instanceof Promise) done.catch((err: unknown) => log(`${message.method} failed: ${String(err)}`))
    } catch (err) {
      log(`${message.method} failed: ${String(err)}`)
    }
  })

  return {
    call<T>(method: string, ...args: unknown[]): Promise<T> {
      const id = nextId++
      return new Promise<T>((resolve, reject) => {
        waiting.set(id, { resolve: resolve as (value: unknown) => void, reject })
        end.postMessage({ kind: 'call', id, method, args } satisfies Message)
      })
    },
    notify(method, args, transfer) {
      end.postMessage({ kind: 'notify', method, args } satisfies Message, transfer)
    },
    fail(reason) {
      for (const call of waiting.values()) call.reject(new Error(reason))
      waiting.clear()
    },
  }
}

/** A Buffer over the bytes of a Uint8Array that crossed a thread boundary (it arrives as a plain Uint8Array). */
export function asBuffer(bytes: Uint8Array): Buffer {
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength)
}
