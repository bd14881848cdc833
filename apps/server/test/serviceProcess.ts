import { spawn, type ChildProcess } from 'node:child_process'
import path from 'node:path'

export const SERVER_DIR = path.resolve(import.meta.dirname, '..')

export interface ServiceProcess {
  child: ChildProcess
  baseUrl: string
  output: () => string
}

/** The service as `npm start` runs it, in a child process with this environment; resolves once it is ready. */
export function startServiceProcess(env: NodeJS.ProcessEnv): Promise<ServiceProcess> {
  const child = spawn(process.execPath, ['--import', 'tsx', 'src/main.ts'], { cwd: SERVER_DIR, env })
  let output = ''
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`service did not become ready:\n${output}`)), 90_000)
    let port: string | undefined
    const onData = (chunk: Buffer) => {
      output += chunk.toString()
      port ??= /listening on [^:]+:(\d+)/.exec(output)?.[1]
      if (port && output.includes('"msg":"ready"')) {
        clearTimeout(timer)
        resolve({ child, baseUrl: `http://127.0.0.1:${port}`, output: () => output })
      }
    }
    child.stdout.on('data', onData)
    child.stderr.on('data', onData)
    child.on('exit', (code) => {
      clearTimeout(timer)
      reject(new Error(`service exited with ${code}:\n${output}`))
    })
  })
}

export function exitCode(child: ChildProcess): Promise<number | null> {
  return new Promise((resolve) => child.once('exit', (code) => resolve(code)))
}
