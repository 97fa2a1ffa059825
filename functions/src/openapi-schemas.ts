/**
 * The schemas of the OpenAPI document: request bodies and queries from the
 * verbs' own zod schemas, answers from core's view schemas (the `*.view.ts`
 * files beside the `to…` functions), each turned into JSON Schema 2020-12
 * (what OpenAPI 3.1 speaks) by `z.toJSONSchema`. Nothing here restates a
 * field or an enum core defines.
 */
import * as z from 'zod';
import {
  CampaignRowView,
  CampaignView,
  LaunchCheckView,
  LaunchedCampaignView,
  LaunchRefusedView,
} from '@outbound/core/campaign/campaign.view';
import { DomainCheckView, PublicDomainCheckView } from '@outbound/core/deliverability/check.view';
import { AddressInUseView, DomainView } from '@outbound/core/domain/domain.view';
import { ReplyView } from '@outbound/core/inbound/reply.view';
import { ImportResultView, UploadTicketView } from '@outbound/core/lead/import/view';
import { LeadView } from '@outbound/core/lead/lead.view';
import { MailboxView } from '@outbound/core/mailbox/mailbox.view';
import { PlacementRunView, PlacementSampleView } from '@outbound/core/placement/placement.view';
import { QueueStatusView } from '@outbound/core/queue/queue.view';
import { SeedView } from '@outbound/core/seed/seed.view';

export type Json = Record<string, unknown>;

/** Every refusal: a sentence a user can read. */
export const ErrorView = z.object({ error: z.string() });
/** A 429: the sentence, and when to try again. */
export const RetryLaterView = ErrorView.extend({ retryAfterMs: z.int() });

/**
 * The named answers, as components.schemas: an answer that is one of these is a $ref to it. Names are
 * the document's since 1.0.0 (clients generated from it name their types after them).
 */
const COMPONENTS = {
  Error: ErrorView,
  RetryLater: RetryLaterView,
  AddressInUse: AddressInUseView,
  LaunchRefused: LaunchRefusedView,
  Mailbox: MailboxView,
  DomainCheck: PublicDomainCheckView,
  DomainCheckResult: DomainCheckView,
  Domain: DomainView,
  Lead: LeadView,
  Campaign: CampaignView,
  CampaignRow: CampaignRowView,
  LaunchedCampaign: LaunchedCampaignView,
  LaunchCheck: LaunchCheckView,
  QueueStatus: QueueStatusView,
  Reply: ReplyView,
  ImportResult: ImportResultView,
  UploadTicket: UploadTicketView,
  SeedInbox: SeedView,
  PlacementSample: PlacementSampleView,
  PlacementRun: PlacementRunView,
} satisfies Record<string, z.ZodType>;
export type ComponentName = keyof typeof COMPONENTS;

const registry = z.registry<{ id: string }>();
for (const [id, schema] of Object.entries(COMPONENTS)) registry.add(schema, { id });

const SAFE = Number.MAX_SAFE_INTEGER;
/**
 * How a view reads in the document. Objects stay open: a field may be added within version 1, so an
 * answer with more fields than its schema names is still valid. What zod adds beyond the contract
 * (the safe-integer bounds of every integer, the regular expression of a date-time) is left out.
 */
const override = ({ jsonSchema: s }: { jsonSchema: Json }) => {
  if (s.additionalProperties === false) delete s.additionalProperties;
  if (s.type === 'integer' && s.minimum === -SAFE && s.maximum === SAFE) {
    delete s.minimum;
    delete s.maximum;
  }
  if (s.format === 'date-time') delete s.pattern;
};

const COMPONENT_REF = '#/components/schemas/';
const withoutDialect = ({ $schema: _, $id: __, $defs: ___, ...rest }: Json): Json => rest;

/** A request schema as the client writes it (before defaults and trims). */
export const requestSchema = (s: z.ZodType): Json => withoutDialect(z.toJSONSchema(s, { io: 'input', unrepresentable: 'any' }) as Json);

/** An answer's schema: a registered view is a $ref to its component, and so is one met inside another. */
export function responseSchema(s: z.ZodType): Json {
  const json = z.toJSONSchema(s, { io: 'output', metadata: registry, override, unrepresentable: 'any' }) as Json;
  // A registered schema lands in $defs; it is in components.schemas already, under the same name.
  return JSON.parse(JSON.stringify(withoutDialect(json)).replaceAll('"#/$defs/', `"${COMPONENT_REF}`)) as Json;
}

/** components.schemas: every named answer, referring to the others by name. */
export function componentSchemas(): Record<string, Json> {
  const { schemas } = z.toJSONSchema(registry, {
    io: 'output',
    override,
    unrepresentable: 'any',
    uri: (id) => `${COMPONENT_REF}${id}`,
  }) as { schemas: Record<string, Json> };
  return Object.fromEntries(Object.entries(schemas).map(([name, s]) => [name, withoutDialect(s)]));
}

export const componentRef = (name: ComponentName) => ({ $ref: `${COMPONENT_REF}${name}` });
