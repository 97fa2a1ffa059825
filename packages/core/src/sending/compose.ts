import type { Deps } from '../deps.ts';
import * as aiKeys from '../ai-keys/index.ts';
import { fillPlaceholders, renderCopy } from '../copy/placeholders.ts';
import { isEuRecipient } from '../guardrails/disclosure.ts';
import { buildFooter } from '../guardrails/footer.ts';
import { unsubscribeUrl } from '../guardrails/unsubscribe.ts';
import { messageIdAt } from '../ids.ts';
import type { OutgoingEmail } from '../ports/mailer.ts';
import type { Campaign, StoredVariant } from '../campaign/entity.ts';
import type { Domain } from '../domain/entity.ts';
import type { Lead } from '../lead/entity.ts';
import type { Mailbox } from '../mailbox/entity.ts';

/** Instructions every AI call carries: the model writes the body only, and the engine adds the footer. */
export const AI_SYSTEM_PROMPT = [
  'You write short, plain-text B2B cold emails on behalf of the sender.',
  'Write only the body of the email: no subject line, no footer, no unsubscribe text, no placeholders in brackets.',
  'Be specific to the recipient, honest, and brief (under 120 words). Do not invent facts about the recipient.',
].join(' ');

export interface Composed {
  email: OutgoingEmail;
  /** The AI wrote this body (and the send gets the disclosure marker for EU recipients). */
  aiGenerated: boolean;
  /** The subject as sent; the first email's becomes the thread's subject. */
  subject: string;
  /** The body the AI wrote, kept with the job so a retry never pays the provider again. */
  aiBody?: string;
}

/** The values placeholders read: the lead's fields, its custom fields (as `x` and `customFields.x`), and the sender's name. */
export function placeholderValues(
  lead: Pick<Lead, 'email' | 'firstName' | 'lastName' | 'company' | 'customFields'>,
  mailbox: Pick<Mailbox, 'senderName'>,
): Record<string, string | undefined> {
  const values: Record<string, string | undefined> = {};
  for (const [k, v] of Object.entries(lead.customFields ?? {})) {
    // Custom fields may hold numbers and booleans (typed so by the lead's schema): a placeholder prints them as text.
    const s = v === null ? undefined : String(v);
    values[k] = s;
    values[`customFields.${k}`] = s;
  }
  return {
    ...values,
    // A name stored as null (older rows) is absent, as a missing one is: the placeholder's fallback applies.
    firstName: lead.firstName ?? undefined,
    lastName: lead.lastName ?? undefined,
    company: lead.company ?? undefined,
    email: lead.email,
    senderName: mailbox.senderName ?? undefined,
  };
}

async function aiText(
  deps: Pick<Deps, 'store' | 'keys' | 'ai' | 'log'>,
  campaign: Campaign,
  values: Record<string, string | undefined>,
  rewrite: string | undefined,
  ownPrompt?: string,
): Promise<string | undefined> {
  const provider = campaign.aiProvider;
  if (!provider) return undefined;
  try {
    const apiKey = await aiKeys.reveal(deps, provider === 'OPENAI' ? 'openai' : 'anthropic');
    if (!apiKey) return undefined;
    const brief = fillPlaceholders(ownPrompt ?? campaign.aiPromptTemplate ?? '', values, {}).text;
    const prompt = rewrite
      ? `${brief}\n\nRewrite this follow-up email for the recipient, keeping its meaning and length:\n\n${rewrite}`
      : brief;
    const text = await deps.ai.write({ provider, apiKey, system: AI_SYSTEM_PROMPT, prompt, maxTokens: 400 });
    return text.trim() || undefined;
  } catch (err) {
    // Any AI failure falls back to the plain copy, which carries no marker (guardrail 5).
    deps.log.warn('AI copy failed; sending the plain template', { campaignId: campaign.id, provider, err });
    return undefined;
  }
}

/**
 * Builds the email of one step for one lead: copy (AI or the spintax
 * template), the footer with the sending domain's address and the
 * unsubscribe link (guardrails 1 and 3), the AI marker where guardrail 5
 * wants it, and the RFC 8058 headers (guardrail 4). Throws GuardrailError
 * when a guardrail refuses the send.
 */
export async function composeEmail(
  deps: Pick<Deps, 'store' | 'keys' | 'ai' | 'log' | 'config' | 'random'>,
  input: { campaign: Campaign; lead: Lead; mailbox: Mailbox; domain: Domain; step: number; aiBody?: string; variant?: StoredVariant },
): Promise<Composed> {
  const { campaign, lead, mailbox, domain, step } = input;
  // Written by the AI for an earlier try of this job: used as it is.
  const kept = input.aiBody?.trim() ? input.aiBody : undefined;
  const values = placeholderValues(lead, mailbox);
  const steps = campaign.steps;
  const thread = lead.thread ?? {};

  let body: string;
  let aiGenerated: boolean;
  if (kept) {
    body = kept;
    aiGenerated = true;
  } else if (step === 0) {
    // A variant's own prompt (when it has one) replaces the campaign's; its template is its plain fallback.
    const ai = await aiText(deps, campaign, values, undefined, input.variant?.aiPromptTemplate);
    body = ai ?? renderCopy((input.variant ?? campaign).template ?? '', values, undefined, deps.random).text;
    aiGenerated = ai !== undefined;
  } else {
    const def = steps[step - 1];
    const plain = renderCopy(def?.body ?? '', values, undefined, deps.random).text;
    const ai = def?.aiRewrite ? await aiText(deps, campaign, values, plain) : undefined;
    body = ai ?? plain;
    aiGenerated = ai !== undefined;
  }

  const subject =
    step === 0 || !thread.firstSubject
      ? renderCopy((step === 0 ? (input.variant ?? campaign) : campaign).subject ?? '', values, undefined, deps.random).text.trim()
      : `Re: ${thread.firstSubject}`;

  const url = await unsubscribeUrl(deps, lead, campaign);
  const email = wrapEmail({
    mailbox,
    domain,
    to: lead.email,
    subject,
    body,
    unsubscribeUrl: url,
    aiDisclosure: aiGenerated && isEuRecipient(lead),
    thread: step > 0 ? thread.messageIds : undefined,
  });
  return { aiGenerated, subject, email, ...(aiGenerated ? { aiBody: body } : {}) };
}

/**
 * What every email gets around its copy, whatever sends it (a campaign step,
 * a placement sample): the footer with the sending domain's address and the
 * unsubscribe link (guardrails 1 and 3; throws GuardrailError without them),
 * the AI marker when asked, a Message-ID at the sending domain, the thread
 * headers of a follow-up, and the RFC 8058 headers (guardrail 4).
 */
export function wrapEmail(p: {
  mailbox: Pick<Mailbox, 'email' | 'senderName'>;
  domain: Pick<Domain, 'domainName' | 'mailingAddress'>;
  to: string;
  subject: string;
  body: string;
  unsubscribeUrl: string | undefined;
  aiDisclosure: boolean;
  /** Message-IDs of the thread so far (a follow-up). */
  thread?: string[];
}): OutgoingEmail {
  const footer = buildFooter({ mailingAddress: p.domain.mailingAddress, unsubscribeUrl: p.unsubscribeUrl, aiDisclosure: p.aiDisclosure });
  const previous = p.thread ?? [];
  return {
    from: { name: p.mailbox.senderName ?? null, address: p.mailbox.email },
    to: p.to,
    subject: p.subject,
    text: `${p.body.trimEnd()}\n\n${footer}\n`,
    messageId: messageIdAt(p.domain.domainName),
    ...(previous.length ? { inReplyTo: previous[previous.length - 1], references: previous } : {}),
    headers: {
      'List-Unsubscribe': `<${p.unsubscribeUrl}>`,
      'List-Unsubscribe-Post': 'List-Unsubscribe=One-Click',
    },
  };
}
