import type { Context, SQSEvent } from 'aws-lambda';
import { describe, expect, it } from 'vitest';
import * as campaigns from '@outbound/core/campaign/index';
import * as domains from '@outbound/core/domain/index';
import * as leads from '@outbound/core/lead/index';
import * as mailboxes from '@outbound/core/mailbox/index';
import { refOf } from '@outbound/core/job-kinds';
import { getJob } from '@outbound/core/sending/jobs';
import { jobId, jobKey } from '@outbound/core/sending/keys';
import { AI_BUDGET_MS, SMTP_BUDGET_MS } from '@outbound/core/sending/sender';
import { created, unitDeps } from '@outbound/core/testing/unit-deps';
import { functions, queues } from '../manifest.ts';
import { withDeps } from '../lib/deps.ts';
import { AI_TIMEOUT_MS } from '../lib/kits/ai.ts';
import { SMTP_PHASE_TIMEOUT_MS } from '../lib/kits/smtp.ts';
import { handler } from './send.ts';

const context = (remainingMs: number) => ({ getRemainingTimeInMillis: () => remainingMs }) as Context;

describe('the sender on Lambda', () => {
  it('fits a send in its timeout: the AI and SMTP budgets, with a margin, and a visibility timeout six times it', () => {
    const timeoutMs = functions.sender.timeoutSeconds * 1000;
    expect(AI_BUDGET_MS + SMTP_BUDGET_MS).toBeLessThanOrEqual(timeoutMs - 10_000);
    // Two AI attempts and the SDK's back-off between them.
    expect(2 * AI_TIMEOUT_MS + 2_000).toBeLessThanOrEqual(AI_BUDGET_MS);
    // Connection, greeting and the commands before the message each wait at most one phase timeout.
    expect(3 * SMTP_PHASE_TIMEOUT_MS).toBeLessThanOrEqual(SMTP_BUDGET_MS);
    expect(queues.send.visibilityTimeoutSeconds).toBeGreaterThanOrEqual(6 * functions.sender.timeoutSeconds);
  });

  it('hands records back untouched, straight onto the queue, when too little time is left', async () => {
    const deps = unitDeps();
    const domain = await created(domains.create, deps, { domainName: 'sender.com', mailingAddress: '1 Main St' });
    const box = await created(mailboxes.create, deps, {
      email: 'rep@sender.com',
      domainId: domain.id,
      smtpHost: 'smtp.mail.test',
      authPassword: 'pw',
    });
    const c = await created(campaigns.create, deps, {
      name: 'C',
      aiPromptTemplate: 'x',
      subject: 'Hi',
      template: 'Hello.',
      mailboxIds: [box.id],
    });
    const lead = await created(leads.create, deps, { campaignId: c.id, email: 'a@client.com' });
    await campaigns.launch(deps, c.id);
    const id = jobId(lead.id, 0);
    await deps.store.update(jobKey(id), { set: { state: 'QUEUED', dueAt: deps.clock.now() } });
    const job = await getJob(deps, id);
    const event = {
      Records: [{ messageId: 'm1', body: JSON.stringify({ jobId: id, ref: refOf(job!) }), attributes: {} }],
    } as unknown as SQSEvent;

    const out = await withDeps(deps, () => handler(event, context(SMTP_BUDGET_MS - 1)));
    expect(out.batchItemFailures).toEqual([]);
    expect(deps.queued).toEqual([{ jobId: id, ref: refOf(job!), delayMs: 0 }]);
    expect(await getJob(deps, id)).toEqual(job);
    expect(deps.mailer.sent).toHaveLength(0);

    // With the time, the same record sends.
    expect((await withDeps(deps, () => handler(event, context(functions.sender.timeoutSeconds * 1000)))).batchItemFailures).toEqual([]);
    expect(deps.mailer.sent).toHaveLength(1);
  });
});
