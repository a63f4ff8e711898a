// A bare repository served over git's smart HTTP protocol on 127.0.0.1 (git http-backend as a CGI, as a
// hosting service runs it), answering only requests that carry the expected Authorization header: what
// actions/checkout's persisted credentials (http.<url>.extraheader) must reach. Every request is logged.
import { spawn } from 'node:child_process'
import * as http from 'node:http'
import type { AddressInfo } from 'node:net'
import * as path from 'node:path'

export interface HttpOrigin {
  /** http://127.0.0.1:<port>/<name> */
  url: string
  /** The header value a request must carry, e.g. "basic eC1hY2Nlc3MtdG9rZW46dG9rZW4="; none: every request is answered. */
  authorization?: string
  /** Each request: method, path and query, and whether it was authorised. */
  requests: { method: string; url: string; authorised: boolean }[]
  close(): Promise<void>
}

/** `open`: every request is answered, with or without credentials. */
export async function serveOrigin(bare: string, options: { open?: boolean } = {}): Promise<HttpOrigin> {
  const authorization = options.open ? undefined : `basic ${Buffer.from('x-access-token:emulated').toString('base64')}`
  const requests: HttpOrigin['requests'] = []
  const server = http.createServer((req, res) => {
    const authorised = authorization === undefined || req.headers.authorization?.replace(/^basic /i, 'basic ') === authorization
    requests.push({ method: req.method ?? '', url: req.url ?? '', authorised })
    if (!authorised) {
      res.writeHead(401, { 'WWW-Authenticate': 'Basic realm="origin"' })
      res.end()
      return
    }
    const url = new URL(req.url ?? '/', 'http://127.0.0.1')
    const cgi = spawn('git', ['http-backend'], {
      env: {
        PATH: process.env.PATH,
        GIT_PROJECT_ROOT: path.dirname(bare),
        GIT_HTTP_EXPORT_ALL: '1',
        REMOTE_USER: 'x-access-token',
        REQUEST_METHOD: req.method,
        PATH_INFO: url.pathname,
        QUERY_STRING: url.search.slice(1),
        CONTENT_TYPE: req.headers['content-type'] ?? '',
        HTTP_CONTENT_ENCODING: req.headers['content-encoding'] ?? '',
        GIT_PROTOCOL: String(req.headers['git-protocol'] ?? '')
      },
      stdio: ['pipe', 'pipe', 'ignore']
    })
    req.pipe(cgi.stdin)
    const chunks: Buffer[] = []
    cgi.stdout.on('data', (chunk: Buffer) => chunks.push(chunk))
    cgi.on('close', () => {
      const output = Buffer.concat(chunks)
      const split = output.indexOf('\r\n\r\n')
      const head = output.subarray(0, split).toString('utf8').split('\r\n')
      const headers: Record<string, string> = {}
      let status = 200
      for (const line of head) {
        const colon = line.indexOf(':')
        if (colon < 0) continue
        const [name, value] = [line.slice(0, colon), line.slice(colon + 1).trim()]
        if (name.toLowerCase() === 'status') status = Number(value.split(' ')[0])
        else headers[name] = value
      }
      res.writeHead(status, headers)
      res.end(output.subarray(split + 4))
    })
  })
  await new Promise<void>(resolve => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as AddressInfo
  return {
    url: `http://127.0.0.1:${port}/${path.basename(bare)}`,
    authorization,
    requests,
    close: () => new Promise(resolve => server.close(() => resolve()))
  }
}
