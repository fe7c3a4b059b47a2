// End-to-end: editing tiers safely (issue 28) in a real Chromium against a running gateway: a
// stricter draft saved beside live, its replay estimate, shadow on, the what-if from the shadow,
// a promotion refused because someone else saved first, then promoted. Run by the gateway's
// TierDraftEndToEndTest (which seeds a free tenant's usage and answers the shadow's decisions
// through a test double of the ledger), or by hand:
//   BASE_URL=http://localhost:8080 ADMIN_USER=admin ADMIN_PASSWORD=... node e2e/draft-e2e.mjs
// Env: BASE_URL, ADMIN_USER, ADMIN_PASSWORD, CHROMIUM (default /usr/bin/chromium), SCREENSHOTS (a folder; none when unset).
import { chromium } from 'playwright-core';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';

const BASE = (process.env.BASE_URL ?? 'http://localhost:8080').replace(/\/$/, '');
const USER = process.env.ADMIN_USER ?? 'admin';
const PASSWORD = process.env.ADMIN_PASSWORD ?? '';
const SHOTS = process.env.SCREENSHOTS ?? '';

let step = 0;
const log = (msg) => console.log(`[draft-e2e ${String(++step).padStart(2, '0')}] ${msg}`);
function check(cond, msg) {
  if (!cond) throw new Error(`check failed: ${msg}`);
}
const adminAuth = 'Basic ' + Buffer.from(`${USER}:${PASSWORD}`).toString('base64');
const adminApi = (path, init = {}) => fetch(`${BASE}/admin/api${path}`, { ...init, headers: { Authorization: adminAuth, ...(init.headers ?? {}) } });
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
const page = await (await browser.newContext({ viewport: { width: 1366, height: 900 } })).newPage();
page.setDefaultTimeout(15_000);
const consoleErrors = [];
page.on('pageerror', (e) => consoleErrors.push(String(e)));
page.on('console', (m) => m.type() === 'error' && !/401|404|409|412|422/.test(m.text()) && consoleErrors.push(m.text()));

try {
  await page.goto(`${BASE}/admin/tiers`);
  await page.getByLabel('User name').fill(USER);
  await page.getByLabel('Password').fill(PASSWORD);
  await page.keyboard.press('Enter');
  await page.getByRole('heading', { name: 'Tiers', exact: true }).waitFor();
  await page.getByText('No draft.').waitFor();
  log('logged in; the Tiers page says there is no draft');

  // ---- a stricter free tier, saved as a draft: live untouched ---------------------------------
  const tpm = page.locator('[id="tiers.free.tokens-per-minute"]');
  await tpm.fill('2000');
  await page.getByText('Unsaved changes, valid').waitFor();
  await page.getByRole('button', { name: 'Review changes' }).click();
  await page.getByRole('heading', { name: 'Review the change' }).waitFor();
  await page.getByRole('button', { name: 'Save as draft' }).click();
  await page.getByText(/^Saved as draft version \d+; live is unchanged/).waitFor();
  const live = await (await adminApi('/tiers')).json();
  check(live.config.tiers.free['tokens-per-minute'] === 10000, 'live still holds 10000 tokens a minute for free');
  log('saved as draft; the live document is unchanged');

  // ---- before any shadow: the replay's estimate, labelled as such -------------------------------
  await page.getByRole('heading', { name: /^Draft version \d+/ }).waitFor();
  await page.locator('.draft .dl.added', { hasText: 'tokens-per-minute: 2000' }).first().waitFor();
  await page.locator('.whatif-source[data-source="replay"]').getByText('Replay estimate (not exact)').waitFor();
  // 8 requests of 1,000 tokens a minute for 30 minutes; 2,000 a minute admits 2: 6 refused a minute.
  const replayRefused = await page.locator('.whatif-totals tr[data-stage="rejected"] td').nth(1).textContent();
  check(Number(replayRefused) === 180, `the replay estimates 180 refusals over the hour (${replayRefused})`);
  await page.locator('.whatif-tenants th', { hasText: 'draft-replayed' }).waitFor();
  log(`before shadow: "${(await page.locator('.whatif-headline').textContent()).trim()}"`);

  // ---- shadow on: the what-if from the shadow's decisions ----------------------------------------
  await page.getByRole('button', { name: 'Start shadow' }).click();
  await page.getByText(/^In shadow since /).waitFor();
  await page.locator('.whatif-source[data-source="shadow"]').waitFor();
  const rows = await page.locator('.whatif-totals tbody tr[data-stage="rejected"] td').allTextContents();
  check(rows[0] === '0' && rows[1] === '17' && rows[2] === '+17', `refusals live 0, draft 17 (${rows.join(' | ')})`);
  const tenants = await page.locator('.whatif-tenants tbody th').allTextContents();
  check(tenants.join(',') === 'draft-web,draft-batch', `the tenants most affected, most first, unchanged ones left out (${tenants})`);
  check((await page.locator('.whatif-tenants tbody tr').first().locator('td').nth(4).textContent()) === '0 → 12', 'draft-web: 0 → 12 refused');
  check((await page.locator('.whatif-chart svg path[data-series="draft"]').count()) === 1, 'the chart draws the draft refusals');
  log(`in shadow: "${(await page.locator('.whatif-headline').textContent()).trim()}"`);
  await shot(page, 'tiers-whatif');

  // ---- promote: refused while someone else saved first, then done -----------------------------
  const cur = await adminApi('/tiers');
  const theirs = (await cur.json()).yaml.replace(/requests-per-minute: 600\b/, 'requests-per-minute: 650');
  const put = await adminApi('/tiers', { method: 'PUT', headers: { 'If-Match': cur.headers.get('etag'), 'Content-Type': 'application/yaml' }, body: theirs });
  check(put.status === 200, `another operator's save succeeds (${put.status})`);
  await page.getByRole('button', { name: /^Promote to live/ }).click();
  await page.getByText('The live tiers document changed since this page read it').waitFor();
  check((await (await adminApi('/tiers/draft')).json()).shadow === true, 'the refused promotion left the draft in shadow');
  log('a promotion against a stale live version is refused, and the page says why');

  await page.reload();
  await page.getByRole('button', { name: /^Promote to live/ }).click();
  await page.getByText(/^Promoted: the draft is live as version \d+/).waitFor();
  const after = await (await adminApi('/tiers')).json();
  check(after.config.tiers.free['tokens-per-minute'] === 2000, 'free holds 2000 tokens a minute now');
  check((await adminApi('/tiers/draft')).status === 404, 'the draft is gone');
  const audit = (await (await adminApi('/audit?limit=10')).json()).entries.map((e) => e.action);
  check(audit.includes('tiers.draft.promoted') && audit.includes('tiers.draft.shadow-on'), `shadow and promote are audited (${audit})`);
  log(`promoted as version ${after.version}; the draft and its shadow ended; audited`);

  check(consoleErrors.length === 0, `no script errors in the page: ${consoleErrors.join(' | ')}`);
  console.log(`[draft-e2e] all ${step} steps passed`);
} catch (e) {
  console.error(`[draft-e2e] FAILED after step ${step}: ${e?.stack ?? e}`);
  mkdirSync('target', { recursive: true });
  await page.screenshot({ path: join('target', 'draft-e2e-failure.png'), fullPage: true }).catch(() => {});
  process.exitCode = 1;
} finally {
  await browser.close();
}
