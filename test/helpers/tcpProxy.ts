import { createServer, Socket, type Server } from 'node:net';
import { once } from 'node:events';

// A TCP proxy on loopback between the processes under test and the shared Postgres, so a test can
// make the database vanish and come back without touching the server other tests use. cut() does
// to the clients what a crash of Postgres does: open connections are reset (ECONNRESET) and new
// ones refused (ECONNREFUSED) until restore().

export interface TcpProxy {
  readonly port: number;
  /** `url` with its host and port replaced by the proxy's. */
  urlThrough(url: string): string;
  /** Connections open through the proxy right now. */
  readonly openConnections: number;
  /** Resets every open connection and refuses new ones. */
  cut(): Promise<void>;
  /** Accepts connections again, on the same port. */
  restore(): Promise<void>;
  /** Passes nothing on, either way, and leaves every connection open: a database that hangs. */
  freeze(): void;
  /** Passes bytes on again, what was held first. */
  thaw(): void;
  close(): Promise<void>;
}

export async function startTcpProxy(target: { host: string; port: number }): Promise<TcpProxy> {
  const sockets = new Set<Socket>();
  const pairs = new Set<{ client: Socket; upstream: Socket }>();
  let frozen = false;
  const join = ({ client, upstream }: { client: Socket; upstream: Socket }) => {
    client.pipe(upstream);
    upstream.pipe(client);
  };
  const track = (socket: Socket) => {
    sockets.add(socket);
    socket.once('close', () => sockets.delete(socket));
    // A reset is the point of cut(); the other side hears it, this one must not crash on it.
    socket.on('error', () => undefined);
  };
  const newServer = (): Server =>
    createServer((client) => {
      const upstream = new Socket();
      track(client);
      track(upstream);
      upstream.connect(target.port, target.host);
      const pair = { client, upstream };
      pairs.add(pair);
      client.once('close', () => pairs.delete(pair));
      if (frozen) {
        client.pause();
        upstream.pause();
      } else {
        join(pair);
      }
      // Either side going away takes the other with it, as a dead server would.
      client.once('close', () => upstream.destroy());
      upstream.once('close', () => client.resetAndDestroy());
    });

  let server = newServer();
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const port = (server.address() as { port: number }).port;
  let listening = true;

  const resetAll = () => {
    for (const socket of sockets) socket.resetAndDestroy();
  };
  const stopListening = async () => {
    if (!listening) return;
    listening = false;
    const closed = new Promise<void>((resolve) => server.close(() => resolve()));
    resetAll();
    await closed;
  };

  return {
    port,
    urlThrough(url: string) {
      const through = new URL(url);
      through.hostname = '127.0.0.1';
      through.port = String(port);
      return through.toString();
    },
    get openConnections() {
      return sockets.size;
    },
    cut: stopListening,
    freeze() {
      frozen = true;
      for (const { client, upstream } of pairs) {
        client.unpipe(upstream);
        upstream.unpipe(client);
        client.pause();
        upstream.pause();
      }
    },
    thaw() {
      frozen = false;
      for (const pair of pairs) join(pair);
    },
    async restore() {
      if (listening) return;
      server = newServer();
      server.listen(port, '127.0.0.1');
      await once(server, 'listening');
      listening = true;
    },
    close: stopListening,
  };
}
