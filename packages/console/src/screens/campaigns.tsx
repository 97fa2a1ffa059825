/**
 * Campaigns: the list with status, progress, counts and launch problems in
 * words; a form to create or edit one (copy with a preview rendered for a
 * sample lead by the send path's own renderer, steps, schedule, variants,
 * mailboxes); launch, pause and archive; a campaign's figures per variant.
 */
import { useEffect, useState } from 'preact/hooks';
import type { Schemas } from '@outbound/client/index';
import { renderCopy } from '@outbound/core/copy/placeholders';
import { api, errorText, when } from '../api.ts';
import { CAMPAIGN_STATUSES } from '../words.ts';
import {
  draftVariants,
  letter,
  VariantFields,
  VariantFigures,
  variantsBody,
  variantsChanged,
  type VariantDraft,
} from './campaign-variants.tsx';
import { Alert, Notice } from '../messages.tsx';

type Row = Schemas['CampaignRow'];
type Campaign = Schemas['Campaign'];
type Problem = { code: string; message: string };

export function Campaigns({ path }: { path: string[] }) {
  const [id] = path;
  if (id === 'new') return <CampaignForm />;
  if (id) return <CampaignForm id={id} />;
  return <CampaignList />;
}

function CampaignList() {
  const [rows, setRows] = useState<Row[] | undefined>();
  const [error, setError] = useState('');
  useEffect(() => {
    void api.GET('/v1/campaigns').then(({ data, error: refused }) => (data ? setRows(data as Row[]) : setError(errorText(refused))));
  }, []);
  return (
    <>
      <h1>Campaigns</h1>
      <p>
        <a href="#/campaigns/new">New campaign</a>
      </p>
      <Alert text={error} />
      {rows && rows.length === 0 && <p class="muted">No campaigns yet.</p>}
      <ul class="rows card" aria-label="Campaigns">
        {rows?.map((c) => (
          <li key={c.id}>
            <div class="row-head">
              <a href={`#/campaigns/${encodeURIComponent(c.id)}`}>{c.name}</a>
              <span class="badge">{CAMPAIGN_STATUSES[c.status]}</span>
            </div>
            <label class="muted" for={`progress-${c.id}`}>
              {c.progress.percentDone}% done
            </label>
            <progress id={`progress-${c.id}`} max={100} value={c.progress.percentDone} />
            <p class="muted">
              {c.leadsCount} leads, {c.sentCount} sent, {c.repliesCount} replies, {c.progress.bounced} bounced. Last activity{' '}
              {when(c.lastActivityAt)}.
            </p>
            {c.status !== 'ARCHIVED' && c.launch.problems.length > 0 && (
              <div>
                <p>It cannot launch yet:</p>
                <ul>
                  {c.launch.problems.map((p) => (
                    <li key={p.code}>{p.message}</li>
                  ))}
                </ul>
              </div>
            )}
          </li>
        ))}
      </ul>
    </>
  );
}

interface Draft {
  name: string;
  subject: string;
  template: string;
  steps: { waitDays: number; body: string }[];
  windowed: boolean;
  timezone: string;
  start: string;
  end: string;
  mailboxIds: string[];
  /** None, or 2 to 6 versions of the first email. */
  variants: VariantDraft[];
  autoWinner: boolean;
}

const EMPTY: Draft = {
  name: '',
  subject: '',
  template: '',
  steps: [],
  windowed: false,
  timezone: Intl.DateTimeFormat().resolvedOptions().timeZone,
  start: '09:00',
  end: '17:00',
  mailboxIds: [],
  variants: [],
  autoWinner: false,
};

const fromCampaign = (c: Campaign): Draft => ({
  name: c.name,
  subject: c.subject ?? '',
  template: c.template,
  steps: c.steps.map((s) => ({ waitDays: s.waitDays, body: s.body ?? '' })),
  windowed: Boolean(c.schedule),
  timezone: c.schedule?.timezone ?? EMPTY.timezone,
  start: c.schedule?.start ?? EMPTY.start,
  end: c.schedule?.end ?? EMPTY.end,
  mailboxIds: c.mailboxIds,
  variants: draftVariants(c.variants),
  autoWinner: c.autoWinner,
});

/** The copy for a sample lead, as the send path renders it (spintax picked, placeholders filled); a broken brace says so. */
function preview(text: string, sample: Record<string, string>): string {
  try {
    return renderCopy(text, sample).text;
  } catch (err) {
    return `The copy cannot be rendered: ${err instanceof Error ? err.message : String(err)}`;
  }
}

function CampaignForm({ id }: { id?: string }) {
  const [draft, setDraft] = useState<Draft>(EMPTY);
  const [campaign, setCampaign] = useState<Campaign | undefined>();
  const [mailboxes, setMailboxes] = useState<{ id: string; email: string; status: string }[]>([]);
  const [sample, setSample] = useState({
    firstName: 'Ana',
    lastName: 'Lopez',
    company: 'Globex',
    email: 'ana@globex.com',
    senderName: 'Sam',
  });
  const [error, setError] = useState('');
  const [problems, setProblems] = useState<Problem[]>([]);
  const [notice, setNotice] = useState('');
  // Which copy the preview renders: -1 the campaign's own, else a variant's index.
  const [shown, setShown] = useState(-1);
  const [check, setCheck] = useState<{ problems: Problem[]; warnings: Problem[] } | undefined>();

  // What launching would say now, read again after each save or action (a draft or a paused campaign only).
  const readCheck = (c: Campaign | undefined) => {
    if (!id || !c || c.status === 'ACTIVE' || c.status === 'ARCHIVED') return setCheck(undefined);
    void api.GET('/v1/campaigns/{id}/launch-check', { params: { path: { id } } }).then(({ data }) => setCheck(data as typeof check));
  };
  useEffect(() => readCheck(campaign), [campaign]);

  useEffect(() => {
    void api.GET('/v1/mailboxes').then(({ data }) => setMailboxes((data as typeof mailboxes | undefined) ?? []));
    if (id) {
      void api.GET('/v1/campaigns/{id}', { params: { path: { id } } }).then(({ data, error: refused }) => {
        if (data) {
          setCampaign(data as Campaign);
          setDraft(fromCampaign(data as Campaign));
        } else setError(errorText(refused));
      });
    }
  }, [id]);

  const set = <K extends keyof Draft>(key: K, value: Draft[K]) => setDraft((d) => ({ ...d, [key]: value }));
  const body = () => ({
    name: draft.name,
    subject: draft.subject,
    template: draft.template,
    steps: draft.steps,
    mailboxIds: draft.mailboxIds,
    schedule: draft.windowed ? { timezone: draft.timezone, start: draft.start, end: draft.end } : null,
    autoWinner: draft.autoWinner,
  });

  const save = async (e: Event) => {
    e.preventDefault();
    setError('');
    setNotice('');
    if (id) {
      const changed = variantsChanged(draft.variants, campaign?.variants);
      const { data, error: refused } = await api.PATCH('/v1/campaigns/{id}', {
        params: { path: { id } },
        body: { ...body(), ...(changed ? { variants: variantsBody(draft.variants) } : {}) },
      });
      if (data) {
        setCampaign(data as Campaign);
        setDraft((d) => ({ ...d, variants: draftVariants((data as Campaign).variants) }));
        setNotice('Saved.');
      } else setError(errorText(refused));
    } else {
      const { data, error: refused } = await api.POST('/v1/campaigns', {
        body: { ...body(), aiPromptTemplate: '', ...(draft.variants.length ? { variants: variantsBody(draft.variants) } : {}) },
      });
      if (data) location.hash = `#/campaigns/${encodeURIComponent((data as Campaign).id)}`;
      else setError(errorText(refused));
    }
  };

  const act = async (action: 'launch' | 'pause' | 'archive') => {
    if (!id) return;
    setError('');
    setNotice('');
    setProblems([]);
    const params = { params: { path: { id } } };
    const { data, error: refused } =
      action === 'launch'
        ? await api.POST('/v1/campaigns/{id}/launch', params)
        : action === 'pause'
          ? await api.POST('/v1/campaigns/{id}/pause', params)
          : await api.DELETE('/v1/campaigns/{id}', params);
    if (data) {
      setCampaign(data as Campaign);
      setNotice(action === 'launch' ? 'Launched: it sends in its window.' : action === 'pause' ? 'Paused.' : 'Archived.');
    } else {
      setError(errorText(refused));
      setProblems((refused as { problems?: Problem[] } | undefined)?.problems ?? []);
    }
  };

  const status = campaign?.status;
  const copy = shown >= 0 && draft.variants[shown] ? draft.variants[shown] : { subject: draft.subject, template: draft.template };
  return (
    <>
      <p>
        <a href="#/campaigns">Back to the list</a>
      </p>
      <h1>{id ? (campaign?.name ?? 'Campaign') : 'New campaign'}</h1>
      {status && (
        <p>
          Status: <span class="badge">{CAMPAIGN_STATUSES[status]}</span>
        </p>
      )}
      {id && status !== 'ARCHIVED' && (
        <div class="card">
          {status !== 'ACTIVE' && (
            <button type="button" onClick={() => void act('launch')}>
              Launch
            </button>
          )}
          {status === 'ACTIVE' && (
            <button type="button" class="quiet" onClick={() => void act('pause')}>
              Pause
            </button>
          )}
          <button type="button" class="danger" onClick={() => void act('archive')}>
            Archive
          </button>
        </div>
      )}
      {check && (check.problems.length > 0 || check.warnings.length > 0) && (
        <section class="card" aria-label="Before launching">
          {check.problems.length > 0 && (
            <>
              <p>It cannot launch yet:</p>
              <ul>
                {check.problems.map((p) => (
                  <li key={p.code}>{p.message}</li>
                ))}
              </ul>
            </>
          )}
          {check.warnings.length > 0 && (
            <>
              <p>Worth a look (these do not stop a launch):</p>
              <ul>
                {check.warnings.map((w) => (
                  <li key={w.code}>{w.message}</li>
                ))}
              </ul>
            </>
          )}
        </section>
      )}
      <Notice text={notice} />
      {error && (
        <div role="alert">
          <p class="error">{error}</p>
          {problems.length > 0 && (
            <ul>
              {problems.map((p) => (
                <li key={p.code}>{p.message}</li>
              ))}
            </ul>
          )}
        </div>
      )}
      {id && campaign?.variants && campaign.variants.length > 0 && (
        <VariantFigures id={id} autoWinner={campaign.autoWinner} version={campaign} />
      )}
      <form class="card" onSubmit={save}>
        <label for="c-name">Name</label>
        <input id="c-name" required value={draft.name} onInput={(e) => set('name', e.currentTarget.value)} />
        <label for="c-subject">Subject</label>
        <input id="c-subject" value={draft.subject} onInput={(e) => set('subject', e.currentTarget.value)} />
        <label for="c-template">First email</label>
        <textarea id="c-template" value={draft.template} onInput={(e) => set('template', e.currentTarget.value)} />
        <p class="muted">
          Use {'{{firstName}}'}, {'{{company}}'} and the like, and {'{Hi|Hello}'} for variations.
        </p>

        <VariantFields
          variants={draft.variants}
          autoWinner={draft.autoWinner}
          aiCopy={Boolean(campaign?.aiProvider)}
          start={{ subject: draft.subject, template: draft.template, aiPromptTemplate: '' }}
          onVariants={(variants) => {
            set('variants', variants);
            if (shown >= variants.length) setShown(-1);
          }}
          onAutoWinner={(on) => set('autoWinner', on)}
        />

        <fieldset>
          <legend>Preview for a sample lead</legend>
          <div class="grid">
            <div>
              <label for="s-first">Sample first name</label>
              <input id="s-first" value={sample.firstName} onInput={(e) => setSample({ ...sample, firstName: e.currentTarget.value })} />
            </div>
            <div>
              <label for="s-company">Sample company</label>
              <input id="s-company" value={sample.company} onInput={(e) => setSample({ ...sample, company: e.currentTarget.value })} />
            </div>
          </div>
          {draft.variants.length > 0 && (
            <>
              <label for="s-copy">Copy to preview</label>
              <select id="s-copy" value={String(shown)} onChange={(e) => setShown(Number(e.currentTarget.value))}>
                <option value="-1">The subject and first email above</option>
                {draft.variants.map((_, i) => (
                  <option key={i} value={String(i)}>
                    Variant {letter(i)}
                  </option>
                ))}
              </select>
            </>
          )}
          <h3>Subject</h3>
          <div class="preview" data-testid="preview-subject">
            {preview(copy.subject, sample)}
          </div>
          <h3>Body</h3>
          <div class="preview" data-testid="preview-body">
            {preview(copy.template, sample)}
          </div>
        </fieldset>

        <fieldset>
          <legend>Follow-ups</legend>
          {draft.steps.map((s, i) => (
            <div key={i} class="card">
              <label for={`step-wait-${i}`}>Follow-up {i + 1}: days after the previous email</label>
              <input
                id={`step-wait-${i}`}
                type="number"
                min={0}
                value={s.waitDays}
                onInput={(e) =>
                  set(
                    'steps',
                    draft.steps.map((x, j) => (j === i ? { ...x, waitDays: Number(e.currentTarget.value) } : x)),
                  )
                }
              />
              <label for={`step-body-${i}`}>Follow-up {i + 1}: text</label>
              <textarea
                id={`step-body-${i}`}
                value={s.body}
                onInput={(e) =>
                  set(
                    'steps',
                    draft.steps.map((x, j) => (j === i ? { ...x, body: e.currentTarget.value } : x)),
                  )
                }
              />
              <button
                type="button"
                class="quiet"
                onClick={() =>
                  set(
                    'steps',
                    draft.steps.filter((_, j) => j !== i),
                  )
                }
              >
                Remove follow-up {i + 1}
              </button>
            </div>
          ))}
          <button type="button" class="quiet" onClick={() => set('steps', [...draft.steps, { waitDays: 3, body: '' }])}>
            Add a follow-up
          </button>
        </fieldset>

        <fieldset>
          <legend>Schedule</legend>
          <label class="inline">
            <input type="checkbox" checked={draft.windowed} onChange={(e) => set('windowed', e.currentTarget.checked)} /> Send only inside a
            daily window (Monday to Friday)
          </label>
          {draft.windowed && (
            <div class="grid">
              <div>
                <label for="c-tz">Time zone</label>
                <input id="c-tz" value={draft.timezone} onInput={(e) => set('timezone', e.currentTarget.value)} />
              </div>
              <div>
                <label for="c-start">From</label>
                <input id="c-start" type="time" value={draft.start} onInput={(e) => set('start', e.currentTarget.value)} />
              </div>
              <div>
                <label for="c-end">Until</label>
                <input id="c-end" type="time" value={draft.end} onInput={(e) => set('end', e.currentTarget.value)} />
              </div>
            </div>
          )}
        </fieldset>

        <fieldset>
          <legend>Mailboxes</legend>
          {mailboxes.length === 0 && <p class="muted">No mailboxes yet: connect one under Mailboxes.</p>}
          {mailboxes.map((m) => (
            <label key={m.id} class="inline">
              <input
                type="checkbox"
                checked={draft.mailboxIds.includes(m.id)}
                onChange={(e) =>
                  set('mailboxIds', e.currentTarget.checked ? [...draft.mailboxIds, m.id] : draft.mailboxIds.filter((x) => x !== m.id))
                }
              />
              {m.email} ({m.status.toLowerCase()})
            </label>
          ))}
        </fieldset>
        <button type="submit">{id ? 'Save' : 'Create campaign'}</button>
      </form>
    </>
  );
}
