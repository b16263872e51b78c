import { createServer as createNetServer, type Server, type Socket } from 'node:net'
import { createServer as createTlsServer } from 'node:tls'
import selfsigned from 'selfsigned'
import { type FakeBehaviour, type FakeCommonOptions, NORMAL, sleep } from './fake-behaviour.ts'
import { loopbackListener } from './loopback-listener.ts'

export type FakeCertificateKind = 'valid' | 'expired' | 'self_signed' | 'wrong_host'

export interface FakeTlsOptions extends FakeCommonOptions {
  /** Which certificate the server presents. Default `valid`. */
  certificate?: FakeCertificateKind
  /** Name the certificate is issued for. Default `secure.example.test`. */
  hostname?: string
}

export interface FakeTlsServer {
  readonly name: 'tls'
  readonly port: number
  readonly hostname: string
  /** PEM of the test CA that issued the `valid`, `expired` and `wrong_host` certificates. */
  readonly ca: string
  readonly connections: number
  /** `hang`: accept TCP and never start TLS; `reset`: drop the connection; `delayMs`: wait before the handshake. */
  behave(behaviour: Partial<FakeBehaviour>): void
  refuse(): Promise<void>
  resume(): Promise<void>
  close(): Promise<void>
}

const DAY = 86_400_000
const CA_NAME = 'Fake Validation Test CA'

let testCa: Promise<{ key: string; cert: string }> | undefined

/** One CA per test process, generated at test time (EC keys: fast). */
function testCertificateAuthority() {
  testCa ??= selfsigned
    .generate(
      [
        { name: 'commonName', value: CA_NAME },
        { name: 'organizationName', value: 'Fake Test Trust Services' },
      ],
      {
        keyType: 'ec',
        algorithm: 'sha256',
        notBeforeDate: new Date(Date.now() - DAY),
        notAfterDate: new Date(Date.now() + 365 * DAY),
        extensions: [
          { name: 'basicConstraints', cA: true, critical: true },
          { name: 'keyUsage', keyCertSign: true, cRLSign: true, digitalSignature: true, critical: true },
        ],
      },
    )
    .then((pems) => ({ key: pems.private, cert: pems.cert }))
  return testCa
}

export async function certificateFor(kind: FakeCertificateKind, hostname: string) {
  const ca = await testCertificateAuthority()
  const expired = kind === 'expired'
  const name = kind === 'wrong_host' ? 'other-host.example.test' : hostname
  const pems = await selfsigned.generate([{ name: 'commonName', value: name }], {
    keyType: 'ec',
    algorithm: 'sha256',
    notBeforeDate: new Date(Date.now() - (expired ? 30 : 1) * DAY),
    notAfterDate: new Date(Date.now() + (expired ? -2 : 90) * DAY),
    ...(kind === 'self_signed' ? {} : { ca: { key: ca.key, cert: ca.cert } }),
    extensions: [
      { name: 'basicConstraints', cA: false },
      { name: 'keyUsage', digitalSignature: true, keyEncipherment: true },
      { name: 'extKeyUsage', serverAuth: true },
      { name: 'subjectAltName', altNames: [{ type: 2, value: name }] },
    ],
  })
  return { key: pems.private, cert: pems.cert, ca: ca.cert }
}

/**
 * A real TLS server on 127.0.0.1 with a certificate made at test time: issued by a test CA
 * (`valid`, `expired`, `wrong_host`) or self-signed. Trust the CA through the probe's `ca`
 * option for the valid case.
 */
export async function startFakeTlsServer(options: FakeTlsOptions = {}): Promise<FakeTlsServer> {
  const hostname = options.hostname ?? 'secure.example.test'
  const material = await certificateFor(options.certificate ?? 'valid', hostname)
  const tlsServer = createTlsServer({ key: material.key, cert: material.cert })
  tlsServer.on('tlsClientError', () => {})
  tlsServer.on('secureConnection', (socket) => {
    socket.on('error', () => {})
    socket.end()
  })
  let behaviour: FakeBehaviour = { ...NORMAL, ...options.behaviour }
  const sockets = new Set<Socket>()
  let connections = 0

  const server: Server = createNetServer(async (socket) => {
    connections++
    sockets.add(socket)
    socket.on('error', () => {})
    const current = behaviour
    options.gauge?.enter('tls')
    let left = false
    const leave = () => {
      if (left) return
      left = true
      options.gauge?.leave('tls')
    }
    socket.on('close', () => {
      sockets.delete(socket)
      leave()
    })
    if (current.mode === 'hang') return
    await sleep(current.delayMs)
    await options.hold?.()
    if (current.mode === 'reset' || socket.destroyed) {
      socket.destroy()
      return
    }
    leave()
    tlsServer.emit('connection', socket)
  })

  const { listen, stop } = loopbackListener(server, sockets)
  await listen(0)
  const address = server.address()
  const port = typeof address === 'object' && address ? address.port : 0

  return {
    name: 'tls',
    port,
    hostname,
    ca: material.ca,
    get connections() {
      return connections
    },
    behave(next) {
      behaviour = { ...behaviour, ...next }
    },
    refuse: stop,
    async resume() {
      if (!server.listening) await listen(port)
    },
    close: stop,
  }
}
