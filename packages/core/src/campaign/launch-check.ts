import { placeholdersIn } from '../copy/spintax.ts';
import { canSend, type Mailbox } from '../mailbox/entity.ts';
import { hasMailingAddress, type Domain } from '../domain/entity.ts';
import type { Campaign } from './entity.ts';

/** The codes, each listed once: the check's types and the API's description (campaign.view.ts) both read these. */
export const PROBLEM_CODES = ['NO_SENDERS', 'DOMAIN_NO_ADDRESS', 'NO_UNSUBSCRIBE', 'BOUNCE_PAUSED', 'EMAIL_EMPTY', 'STEP_EMPTY'] as const;
export type ProblemCode = (typeof PROBLEM_CODES)[number];
export const WARNING_CODES = ['SENDER_NAME_MISSING', 'ALL_WARMING', 'NO_LEADS', 'FIELD_BLANK', 'FIELD_UNKNOWN', 'WEBHOOK_OPEN'] as const;
export type WarningCode = (typeof WARNING_CODES)[number];
export const PASSED = ['SENDERS', 'ADDRESSES', 'UNSUBSCRIBE', 'BOUNCE', 'COPY'] as const;
export type Passed = (typeof PASSED)[number];

export interface Problem {
  code: ProblemCode;
  message: string;
  [extra: string]: unknown;
}
export interface Warning {
  code: WarningCode;
  message: string;
  [extra: string]: unknown;
}
export interface LaunchCheck {
  canLaunch: boolean;
  problems: Problem[];
  warnings: Warning[];
  passed: Passed[];
}

export interface LaunchContext {
  mailboxes: Map<string, Mailbox>;
  domains: Map<string, Domain>;
  /** The installation has a domain for the built-in unsubscribe page (PUBLIC_BASE_URL). */
  hasUnsubscribePage: boolean;
  /** Leads with a non-blank value, by field; only needed for the placeholder warnings. */
  fieldCounts?: Map<string, number>;
}

const LEAD_FIELDS = new Set(['firstName', 'lastName', 'company']);
const blank = (s: unknown) => typeof s !== 'string' || s.trim() === '';

/** The lead field a placeholder reads: `customFields.plan` and `plan` both read the custom field plan. */
const fieldOf = (name: string) => name.replace(/^customFields\./, '');

/**
 * The launch check: every problem (each blocks launch) and every warning
 * (none blocks) at once. Pure, so launch-check, launch and the campaign
 * list share it; callers load the campaign's mailboxes and domains.
 * Each trigger is listed in docs/api.md, Launch check triggers.
 */
export function assess(campaign: Campaign, ctx: LaunchContext): LaunchCheck {
  const problems: Problem[] = [];
  const warnings: Warning[] = [];
  const picked = campaign.mailboxIds.flatMap((id) => {
    const m = ctx.mailboxes.get(id);
    return m ? [m] : [];
  });
  const usable = picked.filter(canSend);

  if (!usable.length) {
    problems.push({
      code: 'NO_SENDERS',
      message: picked.length
        ? 'Every mailbox picked for this campaign is paused or failing: resume one or pick another.'
        : 'No mailbox is picked: choose the mailboxes this campaign sends from.',
    });
  }

  const byDomain = new Map<string, Mailbox[]>();
  for (const m of picked) byDomain.set(m.domainId, [...(byDomain.get(m.domainId) ?? []), m]);
  for (const [domainId, mailboxes] of byDomain) {
    const domain = ctx.domains.get(domainId);
    if (hasMailingAddress(domain)) continue;
    const domainName = domain?.domainName ?? domainId;
    problems.push({
      code: 'DOMAIN_NO_ADDRESS',
      message: `The domain ${domainName} has no mailing address for the footer: add one before sending from it.`,
      domainId,
      domainName,
      mailboxCount: mailboxes.length,
    });
  }

  if (blank(campaign.unsubscribeUrlTemplate) && !ctx.hasUnsubscribePage) {
    problems.push({
      code: 'NO_UNSUBSCRIBE',
      message:
        'There is no unsubscribe link: set unsubscribeUrlTemplate, or give the installation a PUBLIC_BASE_URL for the built-in page.',
    });
  }

  if (campaign.pausedForBounceRate) {
    problems.push({
      code: 'BOUNCE_PAUSED',
      message: 'Sending is paused because too many emails bounced: check the list, then set pausedForBounceRate to false.',
    });
  }

  const variants = campaign.variants ?? [];
  if (variants.length) {
    // Variants replace the campaign's own first email: each needs its subject and body, the campaign's own are not needed.
    variants.forEach((v, i) => {
      if (blank(v.subject) || blank(v.template)) {
        problems.push({
          code: 'EMAIL_EMPTY',
          message: `Variant ${i} needs a subject and a body: they are what is sent when AI is off or fails.`,
          variant: i,
        });
      }
    });
  } else if (blank(campaign.subject) || blank(campaign.template)) {
    problems.push({
      code: 'EMAIL_EMPTY',
      message: 'The first email needs a subject and a body: they are what is sent when AI is off or fails.',
    });
  }

  campaign.steps.forEach((step, i) => {
    if (blank(step.body)) {
      problems.push({ code: 'STEP_EMPTY', message: `Follow-up ${i + 1} has no body.`, position: i + 1 });
    }
  });

  for (const m of picked) {
    if (blank(m.senderName)) {
      warnings.push({
        code: 'SENDER_NAME_MISSING',
        message: `The mailbox ${m.email} has no sender name: recipients will see the bare address.`,
        mailboxId: m.id,
      });
    }
  }
  if (usable.length && usable.every((m) => m.status === 'WARMING')) {
    warnings.push({ code: 'ALL_WARMING', message: 'Every mailbox of this campaign is still warming up: sending will be slow.' });
  }

  if (!campaign.webhookSecured) {
    warnings.push({
      code: 'WEBHOOK_OPEN',
      message:
        "Anyone who knows this campaign's id can add leads to it through POST /v1/leads/webhook: give it a webhook secret (POST /v1/campaigns/{id}/webhook-secret).",
    });
  }

  const leads = campaign.leadsCount;
  if (!leads) warnings.push({ code: 'NO_LEADS', message: 'The campaign has no leads yet: nothing will be sent until some are added.' });

  const { used, inPrompt } = placeholdersOf(campaign);
  for (const name of new Set([...used, ...inPrompt])) {
    const field = fieldOf(name);
    if (field === 'email' || field === 'senderName') continue;
    const present = ctx.fieldCounts?.get(field) ?? 0;
    if (!LEAD_FIELDS.has(field) && present === 0) {
      warnings.push({
        code: 'FIELD_UNKNOWN',
        message: `{{${name}}} is not a lead field, and no lead has a custom field ${field}: it will render empty.`,
        field: name,
      });
    } else if (used.has(name) && leads > present) {
      warnings.push({
        code: 'FIELD_BLANK',
        message: `{{${name}}} is blank for ${leads - present} of ${leads} leads: they get the fallback text or nothing.`,
        field: name,
        blankCount: leads - present,
      });
    }
  }

  const has = (...codes: ProblemCode[]) => problems.some((p) => codes.includes(p.code));
  const passed: Passed[] = [];
  if (!has('NO_SENDERS')) passed.push('SENDERS');
  if (!has('DOMAIN_NO_ADDRESS')) passed.push('ADDRESSES');
  if (!has('NO_UNSUBSCRIBE')) passed.push('UNSUBSCRIBE');
  if (!has('BOUNCE_PAUSED')) passed.push('BOUNCE');
  if (!has('EMAIL_EMPTY', 'STEP_EMPTY')) passed.push('COPY');
  return { canLaunch: problems.length === 0, problems, warnings, passed };
}

/** The placeholders of the campaign's copy and of its AI prompt. */
function placeholdersOf(campaign: Campaign): { used: Set<string>; inPrompt: Set<string> } {
  const variants = campaign.variants ?? [];
  const firstEmail = variants.length ? variants.flatMap((v) => [v.subject, v.template]) : [campaign.subject, campaign.template];
  const copy = [...firstEmail, ...campaign.steps.map((s) => s.body)].filter((t): t is string => !blank(t));
  const prompts = [campaign.aiPromptTemplate ?? '', ...variants.map((v) => v.aiPromptTemplate ?? '')];
  return { used: new Set(copy.flatMap(safePlaceholders)), inPrompt: new Set(prompts.flatMap(safePlaceholders)) };
}

/**
 * The lead fields whose presence counts the check needs: those the copy and
 * the prompt name. Only these are read, however many field names the
 * campaign's leads have brought in (the public webhook takes any name).
 */
export function fieldsNamedBy(campaign: Campaign): string[] {
  const { used, inPrompt } = placeholdersOf(campaign);
  return [...new Set([...used, ...inPrompt].map(fieldOf))].filter((f) => f !== 'email' && f !== 'senderName');
}

function safePlaceholders(text: string): string[] {
  try {
    return placeholdersIn(text);
  } catch {
    return [];
  }
}
