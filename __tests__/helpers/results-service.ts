// A stand-in for GitHub's artifact service, the one part of a rescue that cannot be real here: the real
// @actions/artifact client talks to it as to github.com (Twirp CreateArtifact and FinalizeArtifact, then
// Azure-style block uploads to the signed URL it hands out), and it keeps each uploaded zip.
import * as http from 'node:http'
import type { AddressInfo } from 'node:net'

export interface ResultsService {
  /** Environment that points the client at this service, as the runner gives a step. */
  env: Record<string, string>
  /** The uploaded artifacts, by name: the zip's bytes. */
  artifacts: Map<string, Buffer>
  /** Every request, as "METHOD path". */
  requests: string[]
  close(): Promise<void>
}

export interface ServiceOptions {
  /** Answer CreateArtifact with this status instead (e.g. 409, an artifact of that name exists). */
  failCreate?: number
  /** Never answer the block uploads: a service that stalls. */
  stallUploads?: boolean
}

function base64url(value: object): string {
  return Buffer.from(JSON.stringify(value)).toString('base64url')
}

export async function startResultsService(options: ServiceOptions = {}): Promise<ResultsService> {
  const artifacts = new Map<string, Buffer>()
  const requests: string[] = []
  const blocks = new Map<string, Map<string, Buffer>>()
  const names = new Map<string, string>()
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = []
    req.on('data', (c: Buffer) => chunks.push(c))
    req.on('end', () => {
      const body = Buffer.concat(chunks)
      const url = new URL(req.url ?? '/', 'http://localhost')
      requests.push(`${req.method} ${url.pathname}`)
      const json = (status: number, value: object): void => {
        res.writeHead(status, { 'content-type': 'application/json' })
        res.end(JSON.stringify(value))
      }
      if (url.pathname.endsWith('ArtifactService/CreateArtifact')) {
        if (options.failCreate)
          return json(options.failCreate, { code: 'already_exists', msg: 'an artifact with this name already exists on the workflow run' })
        const request = JSON.parse(body.toString('utf8')) as { name: string }
        // As the real service: one artifact of a name in a run.
        if ([...names.values()].includes(request.name))
          return json(409, { code: 'already_exists', msg: 'an artifact with this name already exists on the workflow run' })
        const id = String(names.size + 1)
        names.set(id, request.name)
        return json(200, { ok: true, signed_upload_url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/blob/${id}?sig=stand-in` })
      }
      if (url.pathname.endsWith('ArtifactService/FinalizeArtifact')) {
        const request = JSON.parse(body.toString('utf8')) as { name: string }
        return json(200, { ok: true, artifact_id: String([...names.values()].indexOf(request.name) + 1) })
      }
      const blob = /^\/blob\/(\d+)$/.exec(url.pathname)?.[1]
      if (blob && req.method === 'PUT') {
        if (options.stallUploads) return // never answers
        const own = blocks.get(blob) ?? new Map<string, Buffer>()
        blocks.set(blob, own)
        if (url.searchParams.get('comp') === 'block') own.set(url.searchParams.get('blockid')!, body)
        else if (url.searchParams.get('comp') === 'blocklist') {
          const ids = [...body.toString('utf8').matchAll(/<Latest>([^<]*)<\/Latest>/g)].map(m => m[1])
          artifacts.set(names.get(blob)!, Buffer.concat(ids.map(id => own.get(id)!)))
        }
        res.writeHead(201, { etag: '"0x1"', 'last-modified': new Date().toUTCString(), 'x-ms-request-id': blob })
        return res.end()
      }
      json(404, { msg: `unknown ${req.method} ${url.pathname}` })
    })
  })
  await new Promise<void>(resolve => server.listen(0, '127.0.0.1', resolve))
  const port = (server.address() as AddressInfo).port
  return {
    env: {
      ACTIONS_RUNTIME_TOKEN: `${base64url({ alg: 'none', typ: 'JWT' })}.${base64url({ scp: 'Actions.ExampleScope Actions.Results:run-backend-id:job-backend-id' })}.stand-in`,
      ACTIONS_RESULTS_URL: `http://127.0.0.1:${port}/`,
      GITHUB_SERVER_URL: 'https://github.com'
    },
    artifacts,
    requests,
    close: () =>
      new Promise(resolve => {
        server.closeAllConnections()
        server.close(() => resolve())
      })
  }
}
