// End-to-end: organisations and keys' own caps in the console (issue 27 item 5), in a real Chromium
// against a running gateway: create an organisation with a shared window and a day budget, add two
// tenants, see its usage bars and 30-day spend chart after they called /v1, see the membership on the
// Tenants page, edit a key's cap, have the delete refused while it has members, remove them, delete it.
// Run by the gateway's OrganisationsEndToEndTest (which creates the two tenants), or by hand:
//   BASE_URL=http://localhost:8080 ADMIN_USER=admin ADMIN_PASSWORD=... E2E_TENANTS=a,b node e2e/organisations-e2e.mjs
// Env: BASE_URL, ADMIN_USER, ADMIN_PASSWORD, E2E_TENANTS (two existing tenant ids), ORG (default e2e-org),
// CHROMIUM (default /usr/bin/chromium), SCREENSHOTS (a folder; none when unset).
import { chromium } from 'playwright-core';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';

const BASE = (process.env.BASE_URL ?? 'http://localhost:8080').replace(/\/$/, '');
const USER = process.env.ADMIN_USER ?? 'admin';
const PASSWORD = process.env.ADMIN_PASSWORD ?? '';
const SHOTS = process.env.SCREENSHOTS ?? '';
const [A, B] = (process.env.E2E_TENANTS ?? 'org-web,org-batch').split(',');
const ORG = process.env.ORG ?? 'e2e-org';

let step = 0;
const log = (msg) => console.log(`[org-e2e ${String(++step).padStart(2, '0')}] ${msg}`);
function check(cond, msg) {
  if (!cond) throw new Error(`check failed: ${msg}`);
}
const adminAuth = 'Basic ' + Buffer.from(`${USER}:${PASSWORD}`).toString('base64');
const adminApi = (path, init = {}) => fetch(`${BASE}/admin/api${path}`, { ...init, headers: { Authorization: adminAuth, ...(init.headers ?? {}) } });
async function chat(key) {
  const res = await fetch(`${BASE}/v1/chat/completions`, {
    method: 'POST',
    headers: { Authorization: `Bearer ${key}`, 'Content-Type': 'application/json' },
    body: JSON.stringify({ model: 'gpt-4o-mini', max_tokens: 200, messages: [{ role: 'user', content: 'Extract page 1' }] }),
  });
  await res.text();
  return res.status;
}
async function shot(page, name) {
  if (!SHOTS) return;
  mkdirSync(SHOTS, { recursive: true });
  await page.screenshot({ path: join(SHOTS, `${name}.png`), fullPage: true });
  log(`screenshot ${name}.png`);
}

const browser = await chromium.launch({
  executablePath: process.env.CHROMIUM ?? '/usr/bin/chromium',
  args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--disable-quic', '--no-first-run'],
});
const page = await (await browser.newContext({ viewport: { width: 1366, height: 900 }, timezoneId: 'UTC' })).newPage();
page.setDefaultTimeout(15_000);
const consoleErrors = [];
page.on('pageerror', (e) => consoleErrors.push(String(e)));
page.on('console', (m) => m.type() === 'error' && !/401|404|409|422/.test(m.text()) && consoleErrors.push(m.text()));
const detail = () => page.locator(`[id="org-${ORG}"]`);

try {
  await page.goto(`${BASE}/admin/organisations`);
  await page.getByLabel('User name').fill(USER);
  await page.getByLabel('Password').fill(PASSWORD);
  await page.keyboard.press('Enter');
  await page.getByRole('heading', { name: 'Organisations', exact: true }).waitFor();
  check((await page.getByRole('link', { name: 'Organisations' }).getAttribute('aria-current')) === 'page', 'the menu marks the page');
  log('logged in on the Organisations page');

  // ---- create: a shared minute window and a day budget -----------------------------------------
  await page.getByLabel('Organisation id').fill('Not valid!');
  await page.getByRole('button', { name: 'Add organisation' }).click();
  await page.getByText('Lower-case letters, digits, ".", "_" or "-", at most 64.').waitFor();
  await page.getByLabel('Organisation id').fill(ORG);
  await page.locator('#new-org-name').fill('E2E Inc');
  await page.locator('#new-org-day').fill('1');
  await page.getByRole('button', { name: 'Add a window' }).click();
  await page.locator('#new-org-w0-tokens').fill('50000');
  await page.getByRole('button', { name: 'Add organisation' }).click();
  await page.getByText(`Organisation ${ORG} created.`).waitFor();
  const created = await (await adminApi(`/organisations/${ORG}`)).json();
  check(created.spend['usd-per-day'] === 1 && created.windows[0].seconds === 60 && created.windows[0].tokens === 50000, `created as asked (${JSON.stringify(created)})`);
  log('a bad id is named on its field; the organisation is created with a minute window and $1 a day');

  // ---- members -----------------------------------------------------------------------------------
  for (const t of [A, B]) {
    await detail().getByLabel('Add tenant').selectOption(t);
    await detail().getByRole('button', { name: 'Add', exact: true }).click();
    await page.getByText(`${t} joined ${ORG}`).waitFor();
  }
  const members = (await (await adminApi(`/organisations/${ORG}`)).json()).members.sort();
  check(JSON.stringify(members) === JSON.stringify([A, B].sort()), `both tenants are members (${members})`);
  log(`${A} and ${B} added`);

  // ---- usage: both members call /v1; the shared bars and the chart show it --------------------------
  for (const t of [A, B]) {
    const issued = await (await adminApi(`/tenants/${t}/keys`, { method: 'POST' })).json();
    for (let i = 0; i < 2; i++) check((await chat(issued.key)) === 200, `${t}'s call is served`);
  }
  for (let i = 0; i < 50; i++) {
    const s = await (await adminApi(`/organisations/${ORG}/spend`)).json();
    if (s.totals.requests >= 4) break; // the ledger lags the answers by up to a second
    await new Promise((r) => setTimeout(r, 200));
  }
  await page.reload();
  await page.getByRole('button', { name: `Open ${ORG}` }).click();
  const window = detail().getByRole('meter', { name: /^Window minute \(1 min\):/ });
  await window.waitFor();
  check(Number(await window.getAttribute('aria-valuenow')) > 0, 'the shared window bar shows the members\' tokens');
  const day = detail().getByRole('meter', { name: /^Daily spend budget:/ });
  await day.waitFor();
  check(/: \$0\.\d+ of \$1\.00 used$/.test(await day.getAttribute('aria-label')), `the day budget bar shows spend (${await day.getAttribute('aria-label')})`);
  const chart = detail().locator('svg.spend-chart');
  await chart.locator('rect.bar.spent').first().waitFor();
  check((await chart.locator('rect.bar').count()) === 30, 'the chart has 30 days');
  check(/Daily spend of e2e-org's members|Daily spend of .+'s members/.test(await chart.getAttribute('aria-label')), 'the chart is labelled');
  log(`usage: ${(await detail().locator('.budgets').innerText()).replace(/\s+/g, ' ')}`);
  await detail().scrollIntoViewIfNeeded();
  await shot(page, 'organisations');

  // ---- the Tenants page: the membership, and a key's own cap edited -------------------------------
  await page.getByRole('link', { name: 'Tenants' }).click();
  await page.getByRole('heading', { name: 'Tenants', exact: true }).waitFor();
  check((await page.getByLabel(`Organisation of ${A}`).inputValue()) === ORG, `${A} shows its organisation`);
  await page.getByRole('button', { name: `Keys of ${A}` }).click();
  await page.getByRole('heading', { name: `Keys of ${A}` }).waitFor();
  const keyId = (await (await adminApi(`/tenants/${A}/keys`)).json()).keys[0].id;
  await page.getByRole('button', { name: `Edit caps of ${keyId}` }).click();
  await page.locator(`[id="edit-${keyId}-tpm"]`).fill('2000');
  await page.getByRole('button', { name: `Save caps of ${keyId}` }).click();
  await page.getByText(`Key ${keyId} changed`).waitFor();
  await page.getByRole('cell', { name: '2,000 tokens/min', exact: true }).waitFor();
  const key = (await (await adminApi(`/tenants/${A}/keys`)).json()).keys.find((k) => k.id === keyId);
  check(key.tokensPerMinute === 2000 && key.usdPerDay === undefined, `the key holds its own cap (${JSON.stringify(key)})`);
  log(`key ${keyId} of ${A} capped at 2,000 tokens a minute from the page`);

  // ---- delete: refused with members, then done -----------------------------------------------------
  await page.getByRole('link', { name: 'Organisations' }).click();
  await page.getByRole('button', { name: `Open ${ORG}` }).click();
  await detail().getByRole('button', { name: `Delete ${ORG}` }).click();
  await detail().getByRole('button', { name: `Yes, delete ${ORG}` }).click();
  await detail().getByText(/still has members/).waitFor();
  log('deleting it while it has members is refused, and the page says why');
  for (const t of [A, B]) {
    await detail().getByRole('button', { name: `Remove ${t} from ${ORG}` }).click();
    await page.getByText(`${t} left ${ORG}.`).waitFor();
  }
  await detail().getByText('No members yet.').waitFor();
  await detail().getByRole('button', { name: `Delete ${ORG}` }).click();
  await detail().getByRole('button', { name: `Yes, delete ${ORG}` }).click();
  await page.getByText(`Organisation ${ORG} deleted.`).waitFor();
  check((await adminApi(`/organisations/${ORG}`)).status === 404, 'the organisation is gone');
  check((await (await adminApi(`/tenants/${A}`)).json()).organisation === undefined, `${A} is in no organisation`);
  log('members removed, then the organisation deleted');

  check(consoleErrors.length === 0, `no script errors in the page: ${consoleErrors.join(' | ')}`);
  console.log(`[org-e2e] all ${step} steps passed`);
} catch (e) {
  console.error(`[org-e2e] FAILED after step ${step}: ${e?.stack ?? e}`);
  mkdirSync('target', { recursive: true });
  await page.screenshot({ path: join('target', 'organisations-e2e-failure.png'), fullPage: true }).catch(() => {});
  process.exitCode = 1;
} finally {
  await browser.close();
}
