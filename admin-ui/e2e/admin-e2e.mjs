// End-to-end: an operator's tasks in a real Chromium against a running gateway, and their
// effect on the tenant API. Run by the gateway's AdminUiEndToEndTest (which starts the
// gateway and seeds a flagged tenant), or by hand against any gateway:
//   BASE_URL=http://localhost:8080 ADMIN_USER=admin ADMIN_PASSWORD=... node e2e/admin-e2e.mjs
// Env: BASE_URL, ADMIN_USER, ADMIN_PASSWORD, CHROMIUM (default /usr/bin/chromium),
// SCREENSHOTS (a folder; none taken when unset), FAILURES (where the page at a failure is saved), E2E_TENANT (a tenant to issue keys to; default
// acme-web), E2E_FLAGGED (the tenant with an open flag; default acme-batch), LAB_WAIT_S (how long a
// lab run may take; default 90). The gateway must have no lab run yet.
import { chromium } from 'playwright-core';
import { mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

const BASE = (process.env.BASE_URL ?? 'http://localhost:8080').replace(/\/$/, '');
const USER = process.env.ADMIN_USER ?? 'admin';
const PASSWORD = process.env.ADMIN_PASSWORD ?? '';
const SHOTS = process.env.SCREENSHOTS ?? '';
const TENANT = process.env.E2E_TENANT ?? 'acme-web';
const FLAGGED = process.env.E2E_FLAGGED ?? 'acme-batch';

let step = 0;
const log = (msg) => console.log(`[e2e ${String(++step).padStart(2, '0')}] ${msg}`);
function check(cond, msg) {
  if (!cond) throw new Error(`check failed: ${msg}`);
}

const adminAuth = 'Basic ' + Buffer.from(`${USER}:${PASSWORD}`).toString('base64');
async function adminApi(path, init = {}) {
  const res = await fetch(`${BASE}/admin/api${path}`, { ...init, headers: { Authorization: adminAuth, ...(init.headers ?? {}) } });
  return res;
}
async function chat(key, maxTokens = 200) {
  const res = await fetch(`${BASE}/v1/chat/completions`, {
    method: 'POST',
    headers: { Authorization: `Bearer ${key}`, 'Content-Type': 'application/json' },
    body: JSON.stringify({ model: 'gpt-4o-mini', max_tokens: maxTokens, messages: [{ role: 'user', content: 'Extract page 1' }] }),
  });
  await res.text();
  return res;
}

async function shot(page, name) {
  if (!SHOTS) return;
  mkdirSync(SHOTS, { recursive: true });
  await page.screenshot({ path: join(SHOTS, `${name}.png`), fullPage: false });
  log(`screenshot ${name}.png`);
}

const browser = await chromium.launch({
  executablePath: process.env.CHROMIUM ?? '/usr/bin/chromium',
  args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--disable-quic', '--no-first-run'],
});
const context = await browser.newContext({ viewport: { width: 1366, height: 768 } });
const page = await context.newPage();
page.setDefaultTimeout(15_000);
const consoleErrors = [];
page.on('pageerror', (e) => consoleErrors.push(String(e)));
page.on('console', (m) => m.type() === 'error' && !/401|404|409|412|422/.test(m.text()) && consoleErrors.push(m.text()));
const nav = (name) => page.getByRole('navigation', { name: 'Pages' }).getByRole('link', { name, exact: true }).click();

try {
  // ---- log in: a wrong password and a tenant key are refused, in the form ------------------
  await page.goto(`${BASE}/admin/`);
  await page.getByRole('heading', { name: 'Sluice admin' }).waitFor();
  await page.getByLabel('User name').fill(USER);
  await page.getByLabel('Password').fill('not the password');
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.getByText('Wrong user name or password.').waitFor();
  log('a wrong password is refused in the form (no browser dialog)');
  await page.getByLabel('Password').fill('sk-sluice-demo-pro');
  await page.getByLabel('Password').press('Enter');
  await page.getByText('tenant keys never open the admin console').waitFor();
  log('a tenant key is refused with a clear message');
  // By keyboard: the password field, Enter to submit.
  await page.getByLabel('Password').fill(PASSWORD);
  await page.keyboard.press('Enter');
  await page.getByRole('heading', { name: 'Overview' }).waitFor();
  log('logged in with the admin credentials, using the keyboard');

  // ---- overview: live decisions and the provider budget --------------------------------------
  for (let i = 0; i < 3; i++) check((await chat('sk-sluice-demo-pro', 50)).status === 200, 'demo-pro chat succeeds');
  await page.getByRole('heading', { name: 'Decisions per stage' }).waitFor();
  await page.locator('article[aria-label="Budget default:*"]').waitFor({ timeout: 20_000 });
  const passedRow = page.locator('tr.stage-passed td').first();
  await page.waitForFunction(() => Number(document.querySelector('tr.stage-passed td')?.textContent?.replace(/,/g, '') ?? 0) >= 3, null, { timeout: 20_000 });
  log(`overview shows passed decisions (${await passedRow.textContent()}) and the default:* budget; it refreshes on its own`);
  const providerRow = page.locator('table.providers tr[aria-label="Provider default"]');
  await providerRow.getByText('built-in simulator').waitFor();
  await page.waitForFunction(() => document.querySelector('table.providers tr[aria-label="Provider default"] td:nth-child(3)')?.textContent?.startsWith('100%'), null, { timeout: 20_000 });
  check((await providerRow.locator('.badge').textContent()) === 'healthy', 'the one provider is healthy');
  log(`the providers table lists default (built-in simulator): ${(await providerRow.innerText()).replace(/\s+/g, ' ')}`);
  await shot(page, 'overview');

  // ---- tiers: a bad value at its field, then an edit, someone else's save, a diff ---------------
  await nav('Tiers');
  const tpm = page.locator('[id="tiers.free.tokens-per-minute"]');
  await tpm.waitFor();
  await tpm.fill('ten');
  await page.locator('[id="tiers.free.tokens-per-minute-err"]').waitFor();
  check((await tpm.getAttribute('aria-invalid')) === 'true', 'the bad field is marked invalid');
  log(`a bad value is named at its field: "${(await page.locator('[id="tiers.free.tokens-per-minute-err"]').textContent()).trim()}"`);
  check(await page.getByRole('button', { name: 'Review changes' }).isDisabled(), 'an invalid document cannot be reviewed');
  await tpm.fill('300');
  await page.getByText('Unsaved changes, valid').waitFor();

  // Someone else saves first (through the API), while this edit is open.
  const cur = await adminApi('/tiers');
  const etag = cur.headers.get('etag');
  const doc = await cur.json();
  check(/requests-per-minute: 600\b/.test(doc.yaml), 'pro has 600 requests per minute to start with');
  const theirs = doc.yaml.replace(/requests-per-minute: 600\b/, 'requests-per-minute: 650');
  const put = await adminApi('/tiers', { method: 'PUT', headers: { 'If-Match': etag, 'Content-Type': 'application/yaml' }, body: theirs });
  check(put.status === 200, `the other operator's save succeeds (${put.status})`);
  log('another operator saved version ' + (await put.json()).version + ' meanwhile');

  await page.getByRole('button', { name: 'Review changes' }).click();
  await page.getByRole('heading', { name: 'Review the change' }).waitFor();
  check((await page.locator('.dl.removed').count()) >= 1 && (await page.locator('.dl.added').count()) >= 1, 'the diff shows the old and new line');
  await shot(page, 'tiers-diff');
  await page.getByRole('button', { name: /^Save version/ }).click();
  await page.getByRole('heading', { name: 'Someone else saved first' }).waitFor();
  log('the stale save is refused and explained');
  await page.locator('.conflict .dl.added', { hasText: 'requests-per-minute: 650' }).first().waitFor();
  await shot(page, 'tiers-conflict');
  await page.getByRole('button', { name: 'Re-apply my edits on their version' }).click();
  check((await tpm.inputValue()) === '300', 'my edit is still there after the conflict');
  await page.getByRole('button', { name: 'Review changes' }).click();
  await page.getByRole('button', { name: /^Save version/ }).click();
  await page.getByText(/^Saved version \d+/).waitFor();
  const saved = await (await adminApi('/tiers')).json();
  check(saved.config.tiers.free['tokens-per-minute'] === 300, 'free holds 300 tokens a minute now');
  check(saved.config.tiers.pro['requests-per-minute'] === 650, "the other operator's change is kept");
  log('my edit re-applied on their version and saved; both changes are in the document');

  // The gateway enforces it on the next request.
  const first = await chat('sk-sluice-demo-free', 200);
  check(first.status === 200, `the first free request fits 300 tokens (${first.status})`);
  check(first.headers.get('x-ratelimit-limit-tokens') === '300', `the free tier's limit is 300 now (${first.headers.get('x-ratelimit-limit-tokens')})`);
  const second = await chat('sk-sluice-demo-free', 200);
  check(second.status === 429, `the second does not fit the new minute (${second.status})`);
  log(`on /v1: x-ratelimit-limit-tokens 300, then 429 with Retry-After ${second.headers.get('retry-after')} s`);

  // ---- tenants: sparklines, a key issued, used and revoked; suspend and resume ----------------
  await nav('Tenants');
  await page.locator(`svg.sparkline[aria-label^="Utilisation of ${FLAGGED}"]`).waitFor();
  check((await page.locator(`svg.sparkline.high[aria-label^="Utilisation of ${FLAGGED}"]`).count()) === 1, 'the flat-lined tenant is drawn as such');
  check((await page.locator(`svg.sparkline.high[aria-label^="Utilisation of ${TENANT}"]`).count()) === 0, 'the bursty tenant is not');
  log('tenant list with sparklines: flat-lined vs burst-and-idle');
  await shot(page, 'tenants');
  const keysButton = page.getByRole('button', { name: `Keys of ${TENANT}` });
  await keysButton.focus();
  await page.keyboard.press('Enter'); // keyboard reachable
  await page.getByRole('heading', { name: `Keys of ${TENANT}` }).waitFor();
  await page.getByRole('button', { name: 'Issue a new key' }).click();
  const secret = await page.locator('#new-key').inputValue();
  check(/^sk-sluice-/.test(secret), 'a new key is shown once');
  await page.getByRole('button', { name: 'Copy key' }).waitFor();
  await shot(page, 'tenants-key-issued');
  check((await chat(secret, 20)).status === 200, 'the new key works on /v1');
  log('a key issued from the UI works on /v1');
  check((await page.locator('.keys-table tbody tr').count()) >= 1, 'the key is listed');
  await page.getByRole('button', { name: /^Revoke key_/ }).first().click();
  await page.getByRole('button', { name: /^Yes, revoke key_/ }).click();
  await page.getByText(/revoked: refused on \/v1/).waitFor();
  const afterRevoke = await chat(secret, 20);
  check(afterRevoke.status === 401, `the revoked key is refused (${afterRevoke.status})`);
  log('the key revoked from the UI; /v1 answers 401');

  await page.getByRole('button', { name: `Suspend ${TENANT}` }).click();
  await page.getByText(`${TENANT} is suspended`).waitFor();
  const key2 = await (await adminApi(`/tenants/${TENANT}/keys`, { method: 'POST' })).json();
  check((await chat(key2.key, 20)).status === 403, 'a suspended tenant gets 403');
  await page.getByRole('button', { name: `Resume ${TENANT}` }).click();
  await page.getByText(`${TENANT} is active again`).waitFor();
  check((await chat(key2.key, 20)).status === 200, 'resumed, it is served again');
  log('suspend and resume take effect on the next request');
  await page.getByLabel(`Tier of ${TENANT}`).selectOption('enterprise');
  await page.getByRole('button', { name: 'Move to enterprise' }).click();
  await page.getByText(`${TENANT} moved to enterprise.`).waitFor();
  const moved = await chat(key2.key, 20);
  check(moved.headers.get('x-sluice-tier') === 'enterprise', `the next request is served on the new tier (${moved.headers.get('x-sluice-tier')})`);
  log('a tier change from the list takes effect on the next request (X-Sluice-Tier: enterprise)');

  // ---- spend: a bar per budget, the 30-day chart, and the month's CSV matching the ledger -------
  const budget = await adminApi(`/tenants/${TENANT}`, {
    method: 'PATCH',
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify({ spend: { 'usd-per-day': 0.05, 'usd-per-month': 1, 'time-zone': 'UTC' } }),
  });
  check(budget.status === 200, `the tenant gets its own spend budgets (${budget.status})`);
  for (let i = 0; i < 3; i++) check((await chat(key2.key, 300)).status === 200, 'a call with spend');
  const today = new Date().toISOString().slice(0, 10);
  let ledger = null;
  for (let i = 0; i < 50; i++) {
    ledger = await (await adminApi(`/tenants/${TENANT}/spend?days=31`)).json();
    const day = ledger.series.find((d) => d.date === today);
    if (day && day.requests >= 6) break; // the six calls of this tenant served above, settled (the ledger lags up to a second)
    await new Promise((r) => setTimeout(r, 200));
  }
  const todayRow = ledger.series.find((d) => d.date === today);
  check(todayRow && todayRow.usd > 0, `the ledger holds today's spend (${JSON.stringify(todayRow)})`);
  await page.getByRole('button', { name: `Spend of ${TENANT}` }).click();
  await page.getByRole('heading', { name: `Spend of ${TENANT}` }).waitFor();
  const dayBar = page.getByRole('meter', { name: /^Daily spend budget:/ });
  await dayBar.waitFor();
  check(Number(await dayBar.getAttribute('aria-valuenow')) > 0, 'the daily budget bar shows spend');
  await page.getByRole('meter', { name: /^Monthly spend budget:/ }).waitFor();
  const spentBars = page.locator(`[id="spend-${TENANT}"] svg.spend-chart rect.bar.spent`);
  await spentBars.first().waitFor();
  log(`the spend panel: ${(await page.locator(`[id="spend-${TENANT}"] .budgets`).innerText()).replace(/\s+/g, ' ')}; ${await spentBars.count()} day(s) with spend in the chart`);
  await page.locator(`[id="spend-${TENANT}"]`).scrollIntoViewIfNeeded();
  await shot(page, 'tenants-spend');

  check((await page.locator('#export-month').inputValue()) === today.slice(0, 7), 'the export picks this month');
  const [download] = await Promise.all([page.waitForEvent('download'), page.getByRole('button', { name: 'Download CSV' }).click()]);
  check(/^sluice-usage-\d{4}-\d{2}-01_\d{4}-\d{2}-\d{2}\.csv$/.test(download.suggestedFilename()), `the file is named for the month (${download.suggestedFilename()})`);
  const csv = readFileSync(await download.path(), 'utf8').trim().split(/\r?\n/);
  check(csv[0] === 'date,tenant,tier,input_tokens,output_tokens,requests,usd,organisation', `the CSV's header (${csv[0]})`);
  const mine = csv.slice(1).map((l) => l.split(',')).filter((c) => c[1] === TENANT);
  check(mine.length >= 1, `the CSV has the tenant's rows (${mine.length})`);
  const ledgerNow = await (await adminApi(`/tenants/${TENANT}/spend?days=31`)).json();
  const month = today.slice(0, 7);
  const ledgerDays = ledgerNow.series.filter((d) => d.date.startsWith(month) && d.requests > 0);
  check(mine.length === ledgerDays.length, `a CSV row for each ledger day with spend (${mine.length} / ${ledgerDays.length})`);
  for (const [date, , , input, output, requests, usdText] of mine) {
    const d = ledgerNow.series.find((x) => x.date === date);
    check(d && d.inputTokens === Number(input) && d.outputTokens === Number(output) && d.requests === Number(requests) && Math.abs(d.usd - Number(usdText)) < 1e-9,
      `the CSV row of ${date} matches the ledger (${[input, output, requests, usdText]} vs ${JSON.stringify(d)})`);
  }
  log(`the month's CSV downloaded from the page; ${TENANT}'s rows match its ledger: ${mine.map((c) => c.join(',')).join(' | ')}`);

  // ---- abuse flags: evidence, a note is required to dismiss, confirm and move tier ------------
  await nav('Abuse flags');
  const card = page.locator('article.flag', { has: page.getByRole('heading', { name: new RegExp(`^${FLAGGED}`) }) });
  await card.waitFor();
  await card.locator('figure.evidence svg').waitFor();
  log('the open flag shows its evidence chart');
  await shot(page, 'flags');
  await card.getByRole('button', { name: 'Dismiss flag' }).click();
  await card.getByText('Say why you dismiss it').waitFor();
  log('dismissing without a note is refused at the field');
  await card.getByLabel(/Confirm and move the tenant/).check();
  await card.getByLabel('Move to tier').selectOption('free');
  await card.getByLabel(/^Note/).fill('Batch job pinned at the ceiling for hours; free tier until they talk to us.');
  await card.getByRole('button', { name: 'Confirm and move to free' }).click();
  await page.getByText(`Flag on ${FLAGGED} confirmed; ${FLAGGED} moved to free.`).waitFor();
  await page.getByText('Nothing to review.').waitFor();
  const tenant = await (await adminApi(`/tenants/${FLAGGED}`)).json();
  check(tenant.tier === 'free', `the flagged tenant is on free now (${tenant.tier})`);
  await page.getByRole('tab', { name: 'History of reviews' }).click();
  await page.locator('table.history').getByText('Confirmed and moved').waitFor();
  log('flag confirmed and the tenant moved; the review is in the history');
  await shot(page, 'flags-history');

  // ---- lab: a real run started from the page, a second operator's start refused, the report --
  // The gateway runs a small lab (AdminUiEndToEndTest sets sluice.lab.scenario.options); against
  // any other gateway this is the full seed-000 run, so LAB_WAIT_S may need raising there.
  await nav('Lab');
  await page.getByRole('heading', { name: 'Lab' }).waitFor();
  await page.getByText('No run yet.').waitFor();
  for (const id of ['case1', 'case3', 'case5']) await page.getByRole('checkbox', { name: new RegExp(`^${id}:`) }).uncheck();
  check(await page.getByRole('checkbox', { name: /^The ramp/ }).isChecked(), 'the ramp is picked by default');
  log('lab: no run yet; case2 and case4 picked, with the ramp');
  // Another operator has the lab page open in a tab of their own since before the run.
  const other = await context.newPage();
  other.on('pageerror', (e) => consoleErrors.push(`other tab: ${e}`));
  await other.goto(`${BASE}/admin/lab`);
  await other.getByLabel('User name').fill(USER);
  await other.getByLabel('Password').fill(PASSWORD);
  await other.getByLabel('Password').press('Enter');
  await other.getByText('No run yet.').waitFor();
  // Every status line the page shows, as it shows it (no polling from here).
  await page.evaluate(() => {
    window.__labStatus = [];
    new MutationObserver(() => {
      const t = document.querySelector('.lab-run [role=status]')?.textContent ?? '';
      if (t && window.__labStatus.at(-1) !== t) window.__labStatus.push(t);
    }).observe(document.body, { subtree: true, childList: true, characterData: true });
  });
  await page.getByRole('button', { name: 'Start a run' }).click();
  await page.getByRole('button', { name: 'Running…' }).waitFor();
  await page.getByRole('progressbar', { name: 'Lab run progress' }).waitFor();
  const runId = (await (await adminApi('/lab/runs/latest')).json()).id;
  log(`the run ${runId} started from the page; it shows its progress`);
  await other.getByRole('button', { name: 'Start a run' }).click();
  await other.getByText('Another lab run is going').waitFor();
  await other.getByRole('progressbar', { name: 'Lab run progress' }).waitFor();
  check((await other.locator('.lab-run [role=status]').textContent()).includes(runId), 'the other tab follows the run that is going');
  log('a second start, from another tab, is refused (409 lab_busy) and that tab follows the run going');
  await shot(other, 'lab-busy');
  await other.close();

  const labWaitS = Number(process.env.LAB_WAIT_S ?? 90);
  try {
    await page.locator('.lab-run [role=status]', { hasText: /^Run \S+: (Finished|Failed)/ }).waitFor({ timeout: labWaitS * 1000 });
  } catch {
    const seen = await page.evaluate(() => window.__labStatus.join(' | '));
    throw new Error(`the lab run did not finish within ${labWaitS} s; the page said: ${seen}`);
  }
  const status = await page.locator('.lab-run [role=status]').textContent();
  check(/: Finished/.test(status), `the lab run finished (${status}; ${await page.locator('.lab-run .notice').allTextContents()})`);
  const seen = await page.evaluate(() => window.__labStatus);
  // Polled every second: a step shorter than that may pass unseen, so only some steps are required.
  check(seen.some((t) => /: Running case\d/.test(t)), `the page showed the steps as they ran: ${seen.join(' | ')}`);
  log(`the run finished; the page showed: ${seen.map((t) => t.replace(/^Run \S+: /, '').replace(/ · .*/, '')).join(' → ')}`);

  // The table shows the report's numbers, a row per case; a chart per case and per ramp.
  const run = await (await adminApi(`/lab/runs/${runId}`)).json();
  check(run.status === 'done' && run.report, `the API has the report (${run.status})`);
  const rows = page.locator('table.lab-table tbody tr');
  check((await rows.count()) === 2, `a row per case (${await rows.count()})`);
  for (const [i, c] of run.report.cases.entries()) {
    // Case, users, books clean, pages sent, died at provider, refused by us, bill, wasted, wait, first failure.
    const [name, users, books, sent, died, , bill, , wait] = await rows.nth(i).locator('th, td').allTextContents();
    const row = `${c.id}: ${[name, users, books, sent, died, bill, wait].join(' | ')}`;
    check(name.startsWith(`${c.id}: `) && users === `${c.users}`, `the row is ${row}`);
    check(books === `${c.booksClean} of ${c.booksTotal}` && c.booksTotal > 0, `books clean as the report has them: ${row}`);
    check(sent.replace(/,/g, '') === `${c.pagesSent}` && died.replace(/,/g, '') === `${c.pagesDied}`, `pages sent and died as the report has them: ${row}`);
    check(/^\$\d+\.\d{2}$/.test(bill) && /^\d+\.\d s \/ \d+\.\d s$/.test(wait), `a bill in dollars and waits in seconds: ${row}`);
    // Two panels in the provider's own measure, each with its limit line at the report's limit.
    const chart = page.locator(`section[aria-label="${c.id} timeline"] svg`);
    check((await chart.count()) === 2, `two panels for ${c.id}, tokens and calls in flight (${await chart.count()})`);
    check(((await chart.first().locator('path.measure').getAttribute('d')) ?? '').length > 10, `${c.id}'s token panel has a line`);
    const limits = await chart.locator('line.limit').evaluateAll((ls) => ls.map((l) => l.getAttribute('data-limit')));
    check(limits.join() === `${c.tokensPerMinuteLimit},${c.inFlightLimit}`, `${c.id}'s limit lines are the provider's TPM and in-flight cap (${limits})`);
  }
  const case2 = run.report.cases[0];
  const case4 = run.report.cases[1];
  check(case2.pagesDied > 0 && case4.pagesDied === 0, `case2 loses pages at the provider, case4 none (${case2.pagesDied}, ${case4.pagesDied})`);
  for (const r of run.report.ramp) check((await page.locator(`section[aria-label="Ramp of ${r.case}"] svg`).count()) === 2, `two ramp panels for ${r.case}`);
  check(run.report.ramp.length === 2, `both cases ran under the ramp (${run.report.ramp.length})`);
  log(`the table shows case2 (${case2.pagesDied} pages died, ${case2.booksClean} of ${case2.booksTotal} books clean) and case4 (none died, ${case4.booksClean} of ${case4.booksTotal}); four charts of two panels`);
  // The picture an operator wants of a finished run: its status line, the table and the charts.
  await page.evaluate(() => document.querySelector('.lab-run')?.scrollIntoView({ block: 'start' }));
  await shot(page, 'lab');

  // A failed run shows its error (a failure cannot be provoked on a healthy gateway: served to this page only).
  const failed = { ...run, status: 'failed', report: null, progress: { step: 'case4', done: 1, total: 4 }, error: 'IllegalStateException: the lab run was interrupted' };
  await page.route('**/admin/api/lab/runs/latest', (route) => route.fulfill({ status: 200, contentType: 'application/json', body: JSON.stringify(failed) }));
  await nav('Overview');
  await nav('Lab');
  await page.getByRole('alert').filter({ hasText: 'the lab run was interrupted' }).waitFor();
  check(/: Failed during case4 /.test(await page.locator('.lab-run [role=status]').textContent()), 'the status line says where it failed');
  check((await page.locator('.lab-run table, .lab-run figure').count()) === 0, 'a failed run shows no report');
  log('a failed run shows its error and where it failed');
  await page.unroute('**/admin/api/lab/runs/latest');

  // ---- log out --------------------------------------------------------------------------------
  await page.getByRole('button', { name: 'Sign out' }).click();
  await page.getByRole('button', { name: 'Sign in' }).waitFor();
  check((await page.evaluate(() => sessionStorage.length)) === 0, 'nothing is left in the tab after signing out');
  log('signed out; the credentials are gone from the tab');

  check(consoleErrors.length === 0, `no script errors in the page: ${consoleErrors.join(' | ')}`);
  console.log(`[e2e] all ${step} steps passed`);
} catch (e) {
  console.error(`[e2e] FAILED after step ${step}: ${e?.stack ?? e}`);
  const dir = process.env.FAILURES ?? '.';
  mkdirSync(dir, { recursive: true });
  await page.screenshot({ path: join(dir, 'e2e-failure.png'), fullPage: true }).catch(() => {});
  console.error(`[e2e] the page at the failure: ${join(dir, 'e2e-failure.png')}`);
  process.exitCode = 1;
} finally {
  await browser.close();
}
