// A stand-in for GitHub's artifact service, the one part of a rescue and a restore that cannot be real here: the
// real @actions/artifact client talks to it as to github.com. Uploads: Twirp CreateArtifact and FinalizeArtifact,
// then Azure-style block uploads to the signed URL it hands out; it keeps each uploaded zip. Downloads: Twirp
// ListArtifacts (every artifact of the run, whatever job or attempt uploaded it, filtered by name or id) and
// GetSignedArtifactURL, then a GET of that URL that answers with the zip. The wire format is the client's
// generated one (results/api/v1/artifact.ts): JSON with the proto field names, wrapper values bare, int64 as
// strings. One run, one job: the backend ids of the token are not checked.
import * as http from 'node:http'
import type { AddressInfo } from 'node:net'
import * as zlib from 'node:zlib'

export interface ResultsService {
  /** Environment that points the client at this service, as the runner gives a step. */
  env: Record<string, string>
  /** The artifacts of the run, by name: the zip's bytes (uploaded, or put here by a test). */
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
  const created = new Set<string>()
  /** The id of each artifact: given at CreateArtifact, or when a test's own is first listed. */
  const idOf = (name: string): string => {
    for (const [id, known] of names) if (known === name) return id
    const id = String(names.size + 1)
    names.set(id, name)
    return id
  }
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
        if (created.has(request.name) || artifacts.has(request.name))
          return json(409, { code: 'already_exists', msg: 'an artifact with this name already exists on the workflow run' })
        created.add(request.name)
        return json(200, { ok: true, signed_upload_url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/blob/${idOf(request.name)}?sig=stand-in` })
      }
      if (url.pathname.endsWith('ArtifactService/FinalizeArtifact')) {
        const request = JSON.parse(body.toString('utf8')) as { name: string }
        return json(200, { ok: true, artifact_id: String([...names.values()].indexOf(request.name) + 1) })
      }
      if (url.pathname.endsWith('ArtifactService/ListArtifacts')) {
        const request = JSON.parse(body.toString('utf8')) as { name_filter?: string; id_filter?: string }
        const listed = [...artifacts.entries()]
          .map(([name, zip]) => ({ name, zip, id: idOf(name) }))
          .filter(a => (request.name_filter === undefined || a.name === request.name_filter) && (request.id_filter === undefined || a.id === request.id_filter))
        return json(200, {
          artifacts: listed.map(a => ({
            workflow_run_backend_id: 'run-backend-id',
            workflow_job_run_backend_id: 'job-backend-id',
            database_id: a.id,
            name: a.name,
            size: String(a.zip.length),
            created_at: new Date().toISOString()
          }))
        })
      }
      if (url.pathname.endsWith('ArtifactService/GetSignedArtifactURL')) {
        const request = JSON.parse(body.toString('utf8')) as { name: string }
        if (!artifacts.has(request.name)) return json(404, { code: 'not_found', msg: 'artifact not found' })
        return json(200, { signed_url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/download/${idOf(request.name)}?sig=stand-in` })
      }
      const download = /^\/download\/(\d+)$/.exec(url.pathname)?.[1]
      if (download && req.method === 'GET') {
        const zip = artifacts.get(names.get(download) ?? '')
        if (!zip) return json(404, { msg: 'no such blob' })
        res.writeHead(200, { 'content-type': 'application/zip', 'content-length': zip.length })
        return res.end(zip)
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

/** A zip of `files` (name → bytes), stored without compression: an artifact a test puts into the service itself. */
export function storedZip(files: Record<string, string | Buffer>): Buffer {
  return zipOf(files)
}

/**
 * A zip of `files` deflated, as another zip tool makes one; `claims` gives the size its central directory says an
 * entry holds (a zip that lies), by name.
 */
export function deflatedZip(files: Record<string, string | Buffer>, claims: Record<string, number> = {}): Buffer {
  return zipOf(files, { deflate: true, claims })
}

function zipOf(files: Record<string, string | Buffer>, o: { deflate?: boolean; claims?: Record<string, number> } = {}): Buffer {
  const locals: Buffer[] = []
  const centrals: Buffer[] = []
  let offset = 0
  for (const [name, content] of Object.entries(files)) {
    const plain = Buffer.from(content)
    const data = o.deflate ? zlib.deflateRawSync(plain) : plain
    const size = o.claims?.[name] ?? plain.length
    const fileName = Buffer.from(name)
    const crc = zlib.crc32(plain)
    const local = Buffer.alloc(30)
    local.writeUInt32LE(0x04034b50, 0)
    local.writeUInt16LE(20, 4)
    local.writeUInt16LE(o.deflate ? 8 : 0, 8)
    local.writeUInt32LE(crc, 14)
    local.writeUInt32LE(data.length, 18)
    local.writeUInt32LE(size, 22)
    local.writeUInt16LE(fileName.length, 26)
    locals.push(local, fileName, data)
    const central = Buffer.alloc(46)
    central.writeUInt32LE(0x02014b50, 0)
    central.writeUInt16LE(20, 4)
    central.writeUInt16LE(20, 6)
    central.writeUInt16LE(o.deflate ? 8 : 0, 10)
    central.writeUInt32LE(crc, 16)
    central.writeUInt32LE(data.length, 20)
    central.writeUInt32LE(size, 24)
    central.writeUInt16LE(fileName.length, 28)
    central.writeUInt32LE(offset, 42)
    centrals.push(central, fileName)
    offset += local.length + fileName.length + data.length
  }
  const directory = Buffer.concat(centrals)
  const end = Buffer.alloc(22)
  end.writeUInt32LE(0x06054b50, 0)
  end.writeUInt16LE(Object.keys(files).length, 8)
  end.writeUInt16LE(Object.keys(files).length, 10)
  end.writeUInt32LE(directory.length, 12)
  end.writeUInt32LE(offset, 16)
  return Buffer.concat([...locals, directory, end])
}
