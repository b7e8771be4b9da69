// Playwright drives Debian's Chromium against a real evalstudio server with a fresh SQLite file.
const { defineConfig } = require('@playwright/test');
const os = require('os');
const path = require('path');
const fs = require('fs');

const port = process.env.E2E_PORT || '3123';
// A local stand-in for a remote model (fake-model.js), reached through an `openai` profile.
const modelPort = process.env.E2E_MODEL_PORT || '3124';
const bin = process.env.E2E_BIN;
// Folder mode (`evalstudio web`) on a copy of tests/fixtures/agents, with google-adk's `adk`.
const folderPort = process.env.E2E_FOLDER_PORT || '3125';
const adk = process.env.E2E_ADK;
const agentsDir = path.join(os.tmpdir(), `evalstudio-e2e-agents-${folderPort}`);
// The config is read again in each test worker, which must not copy over the served folder.
if (!process.env.TEST_WORKER_INDEX) {
  fs.rmSync(agentsDir, { recursive: true, force: true });
  fs.cpSync(path.resolve(__dirname, '../tests/fixtures/agents'), agentsDir, { recursive: true });
}
process.env.E2E_AGENTS_DIR = agentsDir;
process.env.E2E_FOLDER_URL = `http://127.0.0.1:${folderPort}`;
const siteRoot = process.env.E2E_SITE_ROOT || path.resolve(__dirname, '../target/site');
if (!bin || !adk) {
  throw new Error('E2E_BIN must name the evalstudio binary and E2E_ADK google-adk\'s adk (run the browser tests with `make e2e`)');
}
// adk-web, bundled in google-adk's wheel beside `adk`, served by `serve --adk-web-ui` too.
const venvLib = path.resolve(path.dirname(adk), '../lib');
const python = fs.readdirSync(venvLib).find((name) => name.startsWith('python3'));
const adkWebUi = path.join(venvLib, python, 'site-packages/google/adk/cli/browser');
const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'evalstudio-e2e-'));
const config = path.join(dataDir, 'evalstudio.toml');
fs.writeFileSync(
  config,
  `[[profiles]]
name = "fake"
kind = "openai"
model = "fake"
base_url = "http://127.0.0.1:${modelPort}/v1"
system_prompt = "You are a test double."

[[mcp_servers]]
name = "everything"
command = "${path.join(__dirname, 'node_modules/.bin/mcp-server-everything')}"
args = ["stdio"]

[[profiles]]
name = "mcp"
kind = "openai"
model = "fake"
base_url = "http://127.0.0.1:${modelPort}/v1"
mcp_servers = ["everything"]

[judge]
base_url = "http://127.0.0.1:${modelPort}/v1"
model = "fake"

[otlp]
quiet_period_secs = 0
`,
);

// A server with sign-in ([auth]), an editor and an admin, on its own database.
const authPort = process.env.E2E_AUTH_PORT || '3126';
process.env.E2E_AUTH_URL = `http://127.0.0.1:${authPort}`;
const authConfig = path.join(dataDir, 'auth.toml');
fs.writeFileSync(authConfig, '[auth]\n');
const authDb = path.join(dataDir, 'auth.db');

module.exports = defineConfig({
  testDir: './tests',
  timeout: 60_000,
  expect: { timeout: 15_000 },
  fullyParallel: false,
  workers: 1,
  reporter: [['list']],
  use: {
    baseURL: `http://127.0.0.1:${port}`,
    browserName: 'chromium',
    acceptDownloads: true,
    launchOptions: {
      executablePath: '/usr/bin/chromium',
      args: [
        '--no-sandbox',
        '--disable-gpu',
        '--disable-quic',
        '--no-first-run',
        '--disable-background-networking',
        '--disable-component-update',
        '--disable-sync',
      ],
    },
  },
  webServer: [
    {
      command: `node "${path.join(__dirname, 'fake-model.js')}" ${modelPort}`,
      port: Number(modelPort),
      reuseExistingServer: false,
      timeout: 10_000,
    },
    {
      command: `"${bin}" serve --addr 127.0.0.1:${port} --db "${path.join(dataDir, 'e2e.db')}" --site-root "${siteRoot}" --config "${config}" --adk-web-ui "${adkWebUi}"`,
      url: `http://127.0.0.1:${port}/`,
      reuseExistingServer: false,
      timeout: 60_000,
      stdout: 'pipe',
      stderr: 'pipe',
    },
    {
      command: `"${bin}" web "${agentsDir}" --addr 127.0.0.1:${folderPort} --db "${path.join(dataDir, 'folder.db')}" --site-root "${siteRoot}" --adk "${adk}"`,
      url: `http://127.0.0.1:${folderPort}/`,
      reuseExistingServer: false,
      timeout: 120_000,
      stdout: 'pipe',
      stderr: 'pipe',
    },
    {
      command: `printf 'e2e password\\n' | "${bin}" --db "${authDb}" user add edna --role editor --password-stdin && printf 'e2e password\\n' | "${bin}" --db "${authDb}" user add ada --role admin --password-stdin && "${bin}" serve --addr 127.0.0.1:${authPort} --db "${authDb}" --site-root "${siteRoot}" --config "${authConfig}"`,
      url: `http://127.0.0.1:${authPort}/login`,
      reuseExistingServer: false,
      timeout: 60_000,
      stdout: 'pipe',
      stderr: 'pipe',
    },
  ],
});
