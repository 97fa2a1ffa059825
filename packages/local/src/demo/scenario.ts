/** What the demo sends, to whom, and how fast the engine's clock runs for it. */

/** A day of engine time in about 4 seconds, so a follow-up's wait fits in the demo. */
export const TIME_SCALE = 20_000;
export const DEADLINE_MS = 90_000;
export const DAY_MS = 86_400_000;

export const SENDER_NAME = 'Dana from Demo';
export const MAILING_ADDRESS = 'Demo Widgets Ltd\n1 Example Street\nSpringfield, IL 62701\nUSA';
export const LEADS = [
  { email: 'ada@acme.example', firstName: 'Ada', lastName: 'Lovelace', company: 'Acme' },
  { email: 'grace@globex.example', firstName: 'Grace', lastName: 'Hopper', company: 'Globex' },
  { email: 'lena@fabrik.example', firstName: 'Lena', company: 'Fabrik GmbH', customFields: { country: 'DE', city: 'Berlin' } },
  // No first name on purpose: the launch check warns, and the email says "Hi there".
  { email: 'info@initech.example', company: 'Initech' },
];
/** A first email and one follow-up per lead. */
export const EXPECTED = LEADS.length * 2;

export const CAMPAIGN = {
  name: 'Demo outreach',
  aiPromptTemplate: 'Write to {{firstName}} at {{company}} about saving time on outbound email.',
  subject: '{Quick|Short} question for {{company}}',
  template:
    'Hi {{firstName}},\n\n{I noticed|I saw} that {{company}} is growing its sales team. Would a short call next week\n' +
    'about sending cold email without losing your domain reputation make sense?\n\n{{senderName}}',
  steps: [{ waitDays: 1, body: 'Hi {{firstName}}, bringing this back to the top of your inbox: worth a chat?\n\n{{senderName}}' }],
};
