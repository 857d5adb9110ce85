// Measures tool-call latency of `tablewise mcp` and of dbhub
// (@bytebase/dbhub, another MCP server for SQLite) side by side, with the
// same client code (the official TypeScript SDK client), on the same SQLite
// file, over stdio and over streamable HTTP: warm-up calls, then N point
// queries `SELECT * FROM customers WHERE customer_id = <id>` with a varying
// literal id, each timed from callTool to its result. Every answer is
// checked to hold the row asked for.
//
// Usage: node latency.mjs --bin /path/to/tablewise --db /path/to/sample.db
//          --dbhub-config /path/to/dbhub.toml [--n 200] [--warmup 20]
//          [--rounds 1] [--only tablewise/http,dbhub/stdio,...] [--probe blank]
// --probe blank sends a blank statement instead, which neither server takes
// to the database (tablewise refuses it, dbhub runs nothing): what is left
// is the cost of the client, the transport and the server's own handling.
// dbhub.toml must name the same file and enable execute_sql read-only
// (latency.sh writes it). Rounds alternate the servers so that neither
// always runs on a colder or hotter machine. Prints a table, then one JSON
// line with every figure.
import { spawn } from "node:child_process";
import { readFileSync } from "node:fs";
import { createServer } from "node:net";
import { performance } from "node:perf_hooks";
import { createRequire } from "node:module";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";

const opt = { n: 200, warmup: 20, rounds: 1 };
const argv = process.argv.slice(2);
for (let i = 0; i < argv.length; i += 2) {
  const k = argv[i].replace(/^--/, "");
  opt[k] = ["n", "warmup", "rounds"].includes(k) ? Number(argv[i + 1]) : argv[i + 1];
}
if (!opt.bin || !opt.db || !opt["dbhub-config"]) {
  console.error("usage: node latency.mjs --bin TABLEWISE --db SQLITE_FILE --dbhub-config DBHUB_TOML [--n 200] [--warmup 20] [--rounds 1] [--only server/transport,...]");
  process.exit(2);
}
const require = createRequire(import.meta.url);
const dbhubMain = require.resolve("@bytebase/dbhub/dist/index.js");
const pkgVersion = (name) => JSON.parse(readFileSync(new URL(`./node_modules/${name}/package.json`, import.meta.url), "utf8")).version;
const versions = { node: process.version, sdk: pkgVersion("@modelcontextprotocol/sdk"), dbhub: pkgVersion("@bytebase/dbhub") };

// The servers: how to start each over each transport, and its SQL tool.
const servers = {
  tablewise: {
    tool: "run_sql",
    stdio: { command: opt.bin, args: ["mcp", "--db", opt.db] },
    http: async () => {
      const p = start(opt.bin, ["mcp", "--http", "127.0.0.1:0", "--db", opt.db]);
      const m = await p.waitFor(/url=(http:\/\/127\.0\.0\.1:\d+\/mcp)/);
      return { proc: p, url: m[1] };
    },
  },
  dbhub: {
    tool: "execute_sql",
    stdio: { command: process.execPath, args: [dbhubMain, "--transport", "stdio", "--config", opt["dbhub-config"]] },
    http: async () => {
      const port = await freePort();
      const p = start(process.execPath, [dbhubMain, "--transport", "http", "--host", "127.0.0.1", "--port", String(port), "--config", opt["dbhub-config"]]);
      await p.waitFor(/MCP server endpoint at/);
      return { proc: p, url: `http://127.0.0.1:${port}/mcp` };
    },
  },
};

// start runs a server process whose stderr is drained (and its tail kept).
function start(command, args) {
  const proc = spawn(command, args, { stdio: ["ignore", "ignore", "pipe"] });
  let log = "";
  proc.stderr.on("data", (b) => (log = (log + b).slice(-20000)));
  proc.waitFor = (re) =>
    new Promise((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`${command} did not start in 20s:\n${log}`)), 20000);
      const look = () => {
        const m = log.match(re);
        if (m) {
          clearTimeout(timer);
          proc.stderr.off("data", look);
          resolve(m);
        }
      };
      proc.stderr.on("data", look);
      proc.on("exit", (code) => reject(new Error(`${command} exited (${code}):\n${log}`)));
      look();
    });
  proc.log = () => log;
  return proc;
}

function freePort() {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.on("error", reject);
    s.listen(0, "127.0.0.1", () => {
      const { port } = s.address();
      s.close(() => resolve(port));
    });
  });
}

// measure connects to one server over one transport and times the calls.
async function measure(name, transportName) {
  const srv = servers[name];
  let transport;
  let proc;
  let stderr = "";
  if (transportName === "stdio") {
    transport = new StdioClientTransport({ ...srv.stdio, stderr: "pipe" });
    transport.stderr?.on("data", (b) => (stderr = (stderr + b).slice(-20000)));
  } else {
    const h = await srv.http();
    proc = h.proc;
    transport = new StreamableHTTPClientTransport(new URL(h.url));
  }
  const client = new Client({ name: "tablewise-latency", version: "1.0.0" });
  try {
    await client.connect(transport);
    const { tools } = await client.listTools();
    if (!tools.some((t) => t.name === srv.tool)) throw new Error(`${name} has no ${srv.tool} tool: ${tools.map((t) => t.name)}`);
    const call = async (id) => {
      const sql = opt.probe === "blank" ? " " : `SELECT * FROM customers WHERE customer_id = ${id}`;
      const t0 = performance.now();
      const r = await client.callTool({ name: srv.tool, arguments: { sql } });
      const ms = performance.now() - t0;
      const text = r.content?.find((c) => c.type === "text")?.text ?? "";
      if (opt.probe === "blank") {
        if (!text) throw new Error(`${name}/${transportName}: no answer to a blank statement`);
        return ms;
      }
      if (r.isError || !new RegExp(`\\b${id}\\b`).test(text)) throw new Error(`${name}/${transportName}: bad answer for id ${id}: ${text.slice(0, 300)}`);
      return ms;
    };
    for (let i = 0; i < opt.warmup; i++) await call(2400 - i);
    const samples = [];
    for (let i = 0; i < opt.n; i++) samples.push(await call(1 + ((i * 7919) % 2400)));
    return samples;
  } catch (err) {
    err.message += `\nserver stderr (tail):\n${(proc ? proc.log() : stderr).slice(-3000)}`;
    throw err;
  } finally {
    await client.close().catch(() => {});
    if (proc) {
      proc.kill("SIGTERM");
      await new Promise((r) => (proc.exitCode !== null ? r() : proc.on("exit", r)));
    }
  }
}

const quantile = (sorted, q) => sorted[Math.max(0, Math.ceil(q * sorted.length) - 1)];
const combos = [];
for (const t of ["stdio", "http"]) for (const s of ["tablewise", "dbhub"]) combos.push(`${s}/${t}`);
const wanted = opt.only ? opt.only.split(",") : combos;
const samples = Object.fromEntries(wanted.map((c) => [c, []]));
for (let round = 0; round < opt.rounds; round++) {
  const order = round % 2 === 0 ? wanted : [...wanted].reverse();
  for (const c of order) {
    const [s, t] = c.split("/");
    samples[c].push(...(await measure(s, t)));
  }
}

const results = wanted.map((c) => {
  const xs = [...samples[c]].sort((a, b) => a - b);
  const [server, transport] = c.split("/");
  return { server, transport, n: xs.length, median_ms: quantile(xs, 0.5), p90_ms: quantile(xs, 0.9), min_ms: xs[0], max_ms: xs[xs.length - 1] };
});
const f = (x) => x.toFixed(3).padStart(8);
console.log(`${opt.probe === "blank" ? "blank statement (probe)" : "point query"} over MCP, ${opt.n} calls after ${opt.warmup} warm-up per round, ${opt.rounds} round(s); client: @modelcontextprotocol/sdk ${versions.sdk} on Node ${versions.node}; dbhub ${versions.dbhub}`);
console.log("server     transport  calls  median ms   p90 ms   min ms   max ms");
for (const r of results) {
  console.log(`${r.server.padEnd(10)} ${r.transport.padEnd(9)} ${String(r.n).padStart(6)} ${f(r.median_ms)}  ${f(r.p90_ms)} ${f(r.min_ms)} ${f(r.max_ms)}`);
}
console.log(JSON.stringify({ versions, n: opt.n, warmup: opt.warmup, rounds: opt.rounds, results }));
