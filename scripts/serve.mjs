// Serves the static site build/site (made by scripts/build.mjs) on 127.0.0.1.
//   node scripts/serve.mjs        port from $PORT, else 8080; the next free one if taken
// Tests import startServer({ port: 0 }) to get a server on a free port.
import { existsSync } from 'node:fs';
import { createServer } from 'node:http';
import { dirname, extname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import sirv from 'sirv';

const repoRoot = join(dirname(fileURLToPath(import.meta.url)), '..');
export const SITE_ROOT = join(repoRoot, 'build/site');
const HOST = '127.0.0.1';
const PORTS_TO_TRY = 20;

// Set explicitly rather than left to the MIME table: browsers compile .wasm
// by streaming only when it comes as application/wasm, and refuse to run an
// ES module sent with a non-JavaScript type.
const TYPES = {
  '.wasm': 'application/wasm',
  '.mjs': 'text/javascript; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
};

function handler(root) {
  const serveStatic = sirv(root, {
    dev: true, // read from disk on every request, so a rebuild shows without a restart
    etag: true,
    setHeaders(res, pathname) {
      const type = TYPES[extname(pathname)];
      if (type) res.setHeader('Content-Type', type);
      res.setHeader('X-Content-Type-Options', 'nosniff');
      res.setHeader('Cache-Control', 'no-cache');
      // Other sites may use the widgets: a course page loads widgets.js from
      // here as a module (CORS fetch), and it loads its chunks, the .wasm
      // files and KaTeX's fonts the same way. Everything served is public
      // and the server reads no cookies, so any origin may read it.
      res.setHeader('Access-Control-Allow-Origin', '*');
      res.setHeader('Cross-Origin-Resource-Policy', 'cross-origin');
    },
  });
  return (req, res) =>
    serveStatic(req, res, () => {
      res.writeHead(404, { 'Content-Type': 'text/plain; charset=utf-8' });
      res.end('Not found\n');
    });
}

function listen(server, port) {
  return new Promise((resolvePort, reject) => {
    const onError = (err) => {
      server.off('listening', onListening);
      reject(err);
    };
    const onListening = () => {
      server.off('error', onError);
      resolvePort(server.address().port);
    };
    server.once('error', onError);
    server.once('listening', onListening);
    server.listen(port, HOST);
  });
}

/**
 * Starts a static server for `root` on 127.0.0.1.
 * @param {{ port?: number, root?: string }} [options] port 0 picks any free
 *   port; another port that is taken moves on to the next free one.
 * @returns {Promise<{ url: string, port: number, close: () => Promise<void> }>}
 */
export async function startServer({ port = 8080, root = SITE_ROOT } = {}) {
  const site = resolve(root);
  if (!existsSync(join(site, 'index.html'))) {
    throw new Error(`no site to serve in ${site}: run \`node scripts/build.mjs\` (or \`npm run build\`) first`);
  }
  // Links carry a chapter's state in their query: allow long ones (Node's
  // default of 16 KiB answers 431), so that the page itself, which caps and
  // checks every value, is the one to say what it ignored.
  const server = createServer({ maxHeaderSize: 1 << 20 }, handler(site));
  const tries = port === 0 ? 1 : PORTS_TO_TRY;
  for (let i = 0; i < tries; i += 1) {
    try {
      const actual = await listen(server, port === 0 ? 0 : port + i);
      return {
        url: `http://${HOST}:${actual}/`,
        port: actual,
        close: () =>
          new Promise((done) => {
            server.closeAllConnections?.();
            server.close(() => done());
          }),
      };
    } catch (err) {
      if (err.code !== 'EADDRINUSE' || i === tries - 1) throw err;
    }
  }
  throw new Error('unreachable');
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const requested = process.env.PORT === undefined || process.env.PORT === '' ? 8080 : Number(process.env.PORT);
  if (!Number.isInteger(requested) || requested < 0 || requested > 65535) {
    console.error(`PORT must be an integer from 0 to 65535, got "${process.env.PORT}"`);
    process.exit(1);
  }
  try {
    const { url, close } = await startServer({ port: requested });
    console.log(`Attention Geometry: ${url}`);
    console.log('Press Ctrl+C to stop.');
    const stop = () => close().then(() => process.exit(0));
    process.once('SIGINT', stop);
    process.once('SIGTERM', stop);
  } catch (err) {
    console.error(err.message);
    process.exit(1);
  }
}
