// Baseline (b) of the ingestion benchmark: a bare uWebSockets.js handler that reads the body
// and answers {"status":1}, doing nothing else. Prints its port, then serves until killed.
import uWS from 'uWebSockets.js'

const app = uWS.App()
app.any('/*', (res) => {
  let aborted = false
  res.onAborted(() => (aborted = true))
  res.onData((_chunk, isLast) => {
    if (!isLast || aborted) return
    res.cork(() => {
      res.writeStatus('200 OK').writeHeader('content-type', 'application/json').end('{"status":1}')
    })
  })
})
app.listen('127.0.0.1', 0, (socket) => {
  if (!socket) throw new Error('could not listen')
  console.log(`port ${uWS.us_socket_local_port(socket)}`)
})
