// Drives Debian's headless Chromium (puppeteer-core) through cairn's API explorer for
// tests/e2e/openapi_explorer_test.cpp: opens /api/scalar with the admin's session cookie, waits
// until both documents render (the application API with a table's records operations, then the
// auth API), sends a "try it" request from Scalar's client and reads its answer, and saves a
// screenshot. Every request must stay on cairn's origin and the page must report no CSP
// violation. Usage: node openapi_explorer.mjs <base url> <cookie value> <table name> <png>
// Prints one line: "ok" or "fail: <what>".
import puppeteer from 'puppeteer-core';

const [base, cookie, table, screenshot] = process.argv.slice(2);
const chromium = process.env.CHROMIUM || '/usr/bin/chromium';
const problems = [];
const browser = await puppeteer.launch({
  executablePath: chromium,
  headless: true,
  args: ['--no-sandbox', '--disable-gpu', '--disable-dev-shm-usage'],
});

async function bodyText(page) {
  return page.evaluate(() => document.body.innerText);
}

let step = 'start';

async function waitForText(page, text, timeout = 60000) {
  step = `waiting for "${text}"`;
  await page.waitForFunction((wanted) => document.body.innerText.includes(wanted),
                             { timeout }, text);
}

try {
  const page = await browser.newPage();
  await page.setViewport({ width: 1400, height: 1000 });
  const origin = new URL(base).origin;
  await page.setCookie({ name: 'better-auth.session_token', value: cookie, url: base });
  await page.setRequestInterception(true);
  page.on('request', (request) => {
    const url = request.url();
    if (url.startsWith(origin) || url.startsWith('data:') || url.startsWith('blob:')) {
      request.continue();
    } else {
      problems.push(`request to another origin: ${url}`);
      request.abort();
    }
  });
  page.on('console', (message) => {
    if (/Content Security Policy/i.test(message.text())) problems.push(`CSP: ${message.text()}`);
  });

  // The application document: the table's records operations are listed.
  const answer = await page.goto(`${base}/api/scalar`, { waitUntil: 'networkidle0' });
  if (answer.status() !== 200) throw new Error(`/api/scalar answered ${answer.status()}`);
  await waitForText(page, 'openapi-app API');
  await waitForText(page, `${table} records`);
  // Open the table's records group in the sidebar.
  const opened = await page.evaluate((label) => {
    const link = [...document.querySelectorAll('a, button')]
      .find((element) => element.innerText.trim() === label);
    if (!link) return false;
    link.click();
    return true;
  }, `${table} records`);
  if (!opened) throw new Error(`no sidebar entry "${table} records"`);
  await waitForText(page, 'List records');
  await waitForText(page, 'Create a record');

  // "Try it": open the list operation in Scalar's client and send it with the session cookie.
  const operationPath = `/api/tables/${table.toLowerCase()}/records`;
  const clicked = await page.evaluate((label) => {
    const target = [...document.querySelectorAll('button')]
      .find((button) => /test request/i.test(button.innerText) &&
                        button.innerText.includes(`get ${label}`));
    if (!target) return false;
    target.click();
    return true;
  }, operationPath);
  if (!clicked) throw new Error('no "Test Request" button for ' + operationPath);
  step = 'sending the try-it request';
  await page.waitForFunction(() => [...document.querySelectorAll('button')]
    .some((button) => /^send/i.test(button.innerText.trim())), { timeout: 60000 });
  const sent = page.waitForResponse((response) =>
    response.request().method() === 'GET' &&
    new URL(response.url()).pathname === operationPath, { timeout: 60000 });
  await page.evaluate(() => {
    const send = [...document.querySelectorAll('button')]
      .find((button) => /^send/i.test(button.innerText.trim()));
    send.click();
  });
  const response = await sent;
  const body = await response.json();
  if (response.status() !== 200 || !Array.isArray(body.records) || body.records.length === 0) {
    problems.push(`the try-it request answered ${response.status()}: ${JSON.stringify(body)}`);
  }
  // The client shows the answer.
  await waitForText(page, '"totalPages"');
  await page.screenshot({ path: screenshot });
  await page.keyboard.press('Escape');

  // The auth document, the other source.
  const auth = await page.goto(`${base}/api/scalar?api=auth`, { waitUntil: 'networkidle0' });
  if (auth.status() !== 200) throw new Error(`/api/scalar?api=auth answered ${auth.status()}`);
  await waitForText(page, 'openapi-app auth API');
  await waitForText(page, '/api/auth/sign-in/email');
  await page.screenshot({ path: screenshot.replace(/\.png$/, '-auth.png') });
} catch (error) {
  problems.push(`${step}: ${String(error && error.message || error)}`);
  const pages = await browser.pages();
  if (pages.length > 0) {
    await pages[pages.length - 1].screenshot({ path: screenshot.replace(/\.png$/, '-failed.png') })
      .catch(() => {});
  }
} finally {
  await browser.close();
}
console.log(problems.length === 0 ? 'ok' : `fail: ${problems.join(' | ')}`);
process.exit(problems.length === 0 ? 0 : 1);
