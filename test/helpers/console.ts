/**
 * What the console's browser tests share: a page that records every request
 * it makes, signing in through the form, and an axe-core run in the page.
 */
import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { expect } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import { ADMIN } from './engine.ts';

export interface ConsolePage {
  page: Page;
  /** Every URL the page asked for, in order. */
  requests: string[];
  /** Errors the page's scripts threw, what the CSP refused, and any dialog. */
  problems: string[];
}

export async function openConsole(browser: Browser, url: string, viewport = { width: 1200, height: 900 }): Promise<ConsolePage> {
  const page = await browser.newPage({ viewport });
  const requests: string[] = [];
  const problems: string[] = [];
  page.on('request', (r) => requests.push(r.url()));
  page.on('pageerror', (e) => problems.push(`page error: ${e.message}`));
  // A refused request logs an error too (a wrong password's 401): what counts is a script that threw or a policy that refused.
  page.on(
    'console',
    (m) => m.type() === 'error' && /Content Security Policy|Refused to/i.test(m.text()) && problems.push(`console: ${m.text()}`),
  );
  page.on('dialog', (d) => (problems.push(`dialog: ${d.message()}`), void d.dismiss()));
  await page.goto(url);
  return { page, requests, problems };
}

export async function signIn(page: Page, password = ADMIN.password): Promise<void> {
  await page.getByLabel('Email').fill(ADMIN.email);
  await page.getByLabel('Password').fill(password);
  await page.getByRole('button', { name: 'Sign in' }).click();
}

/** Every request went to the engine itself: no CDN, font, analytics or other host. */
export function expectOnlyOwnOrigin(requests: string[], origin: string): void {
  expect(requests.length).toBeGreaterThan(0);
  expect(requests.filter((u) => new URL(u).origin !== origin)).toEqual([]);
}

let axeSource: string | undefined;

/** axe-core's serious and critical violations on the page as it is now (evaluated through the debugger, which the CSP does not govern). */
export async function axeViolations(page: Page): Promise<string[]> {
  axeSource ??= await readFile(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');
  if (!(await page.evaluate<boolean>("'axe' in window"))) await page.evaluate(axeSource);
  // A string, evaluated in the page: the tests' own types have no DOM.
  const violations = await page.evaluate<{ id: string; impact: string; targets: string[] }[]>(`axe.run(document).then((r) =>
    r.violations.map((v) => ({ id: v.id, impact: v.impact, targets: v.nodes.map((n) => JSON.stringify(n.target)) })))`);
  return violations
    .filter((v) => v.impact === 'serious' || v.impact === 'critical')
    .map((v) => `${v.impact} ${v.id}: ${v.targets.join(' ')}`);
}
