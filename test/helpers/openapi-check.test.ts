import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { OpenApiChecker, OpenApiMismatch } from './openapi-check.ts';

const json = 'application/json; charset=utf-8';
const mailbox = { id: '01HZX', email: 'ana@acme.test', domainId: '01HZD', provider: 'SMTP_CUSTOM', status: 'WARMING', dailyCap: 30 };

describe('the OpenAPI conformance check of the end-to-end tests', () => {
  const check = new OpenApiChecker();

  it('passes an answer the document describes, and finds operations by method and path template (literals first)', () => {
    expect(
      check.problem({ method: 'POST', path: '/v1/mailboxes', status: 201, contentType: json, text: JSON.stringify(mailbox) }),
    ).toBeUndefined();
    expect(check.problem({ method: 'DELETE', path: '/v1/mailboxes/01HZX', status: 204, contentType: '', text: '' })).toBeUndefined();
    expect(
      check.problem({
        method: 'GET',
        path: '/v1/nothing-here?x=1',
        status: 404,
        contentType: json,
        text: '{"error":"There is no GET /v1/nothing-here in this API."}',
      }),
    ).toBeUndefined();
    expect(check.operationFor('DELETE', '/v1/leads/erase')?.key).toBe('DELETE /v1/leads/erase');
    expect(check.operationFor('DELETE', '/v1/leads/01ABC')?.key).toBe('DELETE /v1/leads/{id}');
    expect(check.operationFor('GET', '/v1/campaigns/c1/launch-check?x=1')?.key).toBe('GET /v1/campaigns/{id}/launch-check');
    expect(check.operationFor('PUT', '/v1/campaigns')).toBeUndefined();
  });

  it('fails a body that does not match the status’s schema, naming the route, the status and the field', () => {
    const wrong = { ...mailbox, dailyCap: 'thirty' };
    const problem = check.problem({
      method: 'PATCH',
      path: '/v1/mailboxes/01HZX',
      status: 200,
      contentType: json,
      text: JSON.stringify(wrong),
    });
    expect(problem).toMatch(
      /^PATCH \/v1\/mailboxes\/\{id\} answered 200 with a body that does not match the document's schema #\/components\/schemas\/Mailbox: \/dailyCap must be integer/,
    );
    // A required field missing, through a $ref inside an array.
    const list = check.problem({
      method: 'GET',
      path: '/v1/mailboxes',
      status: 200,
      contentType: json,
      text: JSON.stringify([{ id: 'x' }]),
    });
    expect(list).toMatch(/GET \/v1\/mailboxes answered 200 .*\/0 must have required property 'email'/);
    // A refusal is an { error } sentence.
    expect(check.problem({ method: 'POST', path: '/v1/campaigns', status: 422, contentType: json, text: '{"message":"no"}' })).toMatch(
      /answered 422 .*must have required property 'error'/,
    );
    expect(() => check.assert({ method: 'GET', path: '/v1/campaigns/c1', status: 200, contentType: json, text: '{"id":1}' })).toThrow(
      OpenApiMismatch,
    );
    // A $ref from one component to another (a domain's lastCheck is a check result, whose allOf holds the public six fields).
    const domain = {
      id: 'd1',
      domainName: 'acme.test',
      lastCheck: {
        domain: 'acme.test',
        spf: 'MAYBE',
        dkim: 'PASS',
        dmarc: 'PASS',
        blocklists: {},
        listUnsubscribeCheck: 'x',
        dkimSelector: null,
        details: {},
        checkedAt: '2026-11-25T08:00:00.000Z',
      },
    };
    expect(check.problem({ method: 'GET', path: '/v1/domains', status: 200, contentType: json, text: JSON.stringify([domain]) })).toMatch(
      /\/0\/lastCheck\/spf must be equal to one of the allowed values/,
    );
    domain.lastCheck.spf = 'PASS';
    expect(
      check.problem({ method: 'GET', path: '/v1/domains', status: 200, contentType: json, text: JSON.stringify([domain]) }),
    ).toBeUndefined();
  });

  it('fails a status the operation does not list, a body where none is described, and a wrong media type', () => {
    expect(
      check.problem({ method: 'GET', path: '/v1/campaigns', status: 409, contentType: json, text: '{"error":"Conflict here."}' }),
    ).toMatch(/^GET \/v1\/campaigns answered 409, which the document does not list for it \(it lists 200, 401, 404, 429, 500\)/);
    expect(check.problem({ method: 'GET', path: '/v1/nothing-here', status: 200, contentType: json, text: '{}' })).toMatch(
      /no operation: the catch-all\) answered 200, which the document does not list/,
    );
    expect(check.problem({ method: 'DELETE', path: '/v1/mailboxes/01HZX', status: 204, contentType: json, text: '{}' })).toMatch(
      /with a body .* where the document describes none/,
    );
    expect(check.problem({ method: 'GET', path: '/v1/campaigns', status: 200, contentType: 'text/html', text: '<p>hi</p>' })).toMatch(
      /as text\/html, where the document says application\/json/,
    );
    expect(check.problem({ method: 'GET', path: '/v1/campaigns', status: 200, contentType: json, text: '[{' })).toMatch(/not JSON/);
  });

  it('holds the check to a document of its own: a broken document makes a right answer fail', () => {
    const doc = new OpenApiChecker().doc;
    const broken = JSON.parse(JSON.stringify(doc));
    broken.components.schemas.Mailbox.properties.dailyCap = { type: 'string' };
    expect(
      new OpenApiChecker(broken).problem({
        method: 'POST',
        path: '/v1/mailboxes',
        status: 201,
        contentType: json,
        text: JSON.stringify(mailbox),
      }),
    ).toMatch(/\/dailyCap must be string/);
  });
});

describe('the examples of docs/api.md', () => {
  const md = readFileSync(new URL('../../docs/api.md', import.meta.url), 'utf8');
  const section = md.slice(md.indexOf('## Every route, with an example'), md.indexOf('## Request bodies'));
  const check = new OpenApiChecker();

  it('name every operation of the document', () => {
    const missing = Object.entries(check.doc.paths as Record<string, Record<string, unknown>>).flatMap(([path, ops]) =>
      Object.keys(ops)
        .map((m) => `${m.toUpperCase()} ${path}`)
        .filter((key) => !section.includes(key)),
    );
    expect(missing).toEqual([]);
  });

  it('answer what the document says: each JSON answer is valid for the route of the curl before it', () => {
    let curl: string | undefined;
    let checked = 0;
    const problems: string[] = [];
    for (const [, lang, text] of section.matchAll(/```(\w*)\n([\s\S]*?)```/g)) {
      if (lang === 'sh') {
        curl =
          text!
            .replace(/\\\n/g, ' ')
            .split('\n')
            .filter((l) => l.includes('curl'))
            .pop() ?? curl;
        continue;
      }
      if (lang !== 'json' || !curl) continue;
      const method = /-X (\w+)/.exec(curl)?.[1] ?? (/ -d | -F /.test(curl) ? 'POST' : 'GET');
      const path = /\$BASE([^\s"']+)/.exec(curl)?.[1] ?? '';
      if (path === '/v1/openapi.json') continue; // a jq excerpt of the document itself
      const op = check.operationFor(method, path);
      if (!op) {
        problems.push(`no operation for ${method} ${path}`);
        continue;
      }
      const body = JSON.parse(text!) as { error?: unknown };
      const statuses = Object.keys(op.responses).map(Number);
      const candidates = typeof body.error === 'string' ? statuses.filter((s) => s >= 400) : statuses.filter((s) => s < 300);
      const seen = candidates.map((status) =>
        check.problem({ method, path, status, contentType: 'application/json', text: JSON.stringify(body) }),
      );
      if (!seen.includes(undefined)) problems.push(seen.join(' | '));
      checked++;
    }
    expect(problems).toEqual([]);
    expect(checked).toBeGreaterThanOrEqual(28);
  });
});
