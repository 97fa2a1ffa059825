/**
 * The examples of the OpenAPI document, by operation id: a request body, the
 * success answer, and the answer of a refusal whose body says more than
 * `{ error }`. They are the examples docs/api.md shows, written here once:
 * functions/src/openapi-examples.test.ts holds each to its schema in the
 * document and to the page, so neither can drift from the engine.
 */

export interface OperationExamples {
  request?: unknown;
  /** The success status's body. */
  response?: unknown;
  /** By status: only refusals with a body of their own (a route's `errorBodies`), not the shared `{ error }` ones. */
  errors?: Record<number, unknown>;
}

const domain = {
  id: '01M88YEYQ8QB3W8EZPN2XD2QMF',
  domainName: 'acme.com',
  redirectUrl: null,
  dkimSelector: 'google',
  label: null,
  mailingAddress: 'Acme Inc.\n1 Main St\nSpringfield, IL 62701\nUSA',
  mailingAddressParts: null,
  createdAt: '2026-11-25T08:51:52.681Z',
  updatedAt: '2026-11-25T08:51:52.681Z',
  lastCheck: null,
  usedBy: { campaigns: 0, sending: 0, paused: 0, drafts: 0 },
};
const mailbox = {
  id: '01M88YG1ZZKHWPH5DQTWK1SZPK',
  email: 'rita@acme.com',
  domainId: '01M88YEYQ8QB3W8EZPN2XD2QMF',
  provider: 'SMTP_CUSTOM',
  dailyCap: 30,
  smtpHost: 'smtp.acme.com',
  smtpPort: 587,
  imapHost: 'imap.acme.com',
  imapPort: 993,
  senderName: 'Rita Ruiz',
  status: 'ACTIVE',
  auth: 'password',
  createdAt: '2026-11-25T08:52:28.799Z',
  updatedAt: '2026-11-25T08:52:28.799Z',
  authUsername: null,
};
const campaign = {
  id: '01M88YG22XTF1T2M9HM4XRMJTV',
  name: 'Spring outreach',
  status: 'DRAFT',
  aiPromptTemplate: '',
  template: 'Hi {{firstName}},\n\nI noticed {{company}} is growing. Would a short call next week make sense?\n\n{{senderName}}',
  subject: '{Quick|Short} question, {{firstName}}',
  aiProvider: null,
  unsubscribeUrlTemplate: null,
  mailboxIds: ['01M88YG1ZZKHWPH5DQTWK1SZPK'],
  steps: [{ waitDays: 3, body: 'Just bumping this, {{firstName}}.' }],
  schedule: {
    timezone: 'America/New_York',
    useLeadTimezone: true,
    days: ['mon', 'tue', 'wed', 'thu', 'fri'],
    start: '09:00',
    end: '17:00',
  },
  variants: null,
  autoWinner: false,
  bounceRateThreshold: 5,
  pausedForBounceRate: false,
  contentQuality: 85,
  leadsCount: 0,
  sentCount: 0,
  repliesCount: 0,
  lastActivityAt: null,
  createdAt: '2026-11-25T08:52:28.893Z',
  updatedAt: '2026-11-25T08:52:28.893Z',
  webhookSecured: false,
};
const lead = {
  id: 'TK92P5NXR380ZA3STSQA3JSG6C',
  campaignId: '01M88YG22XTF1T2M9HM4XRMJTV',
  email: 'ana.lopez@globex.com',
  firstName: 'Ana',
  lastName: null,
  company: 'Globex',
  customFields: { industry: 'logistics', employees: 240, country: 'ES' },
  status: 'NEW',
  variant: null,
  createdAt: '2026-11-25T08:49:09.264Z',
  updatedAt: '2026-11-25T08:49:09.264Z',
  timezone: 'Europe/Madrid',
  timezoneSource: 'country',
};
const reply = {
  id: 'nDUzxZzEibgBkiz0p8OEWvX2FO',
  campaignId: '01M88YG22XTF1T2M9HM4XRMJTV',
  leadId: 'TK92P5NXR380ZA3STSQA3JSG6C',
  mailboxId: '01M88YG1ZZKHWPH5DQTWK1SZPK',
  fromEmail: 'ana.lopez@globex.com',
  subject: 'Re: Short question, Ana',
  snippet: 'Thanks, not right now. Maybe next quarter.',
  receivedAt: '2026-11-25T08:52:30.000Z',
  status: 'MEETING_BOOKED',
  statusSource: 'person',
  referral: null,
  followUpOn: '2027-01-01',
  read: true,
  snoozedUntil: null,
};
const leadImport = {
  importId: '01M88YABTWS52F6K53C24Z6FMM',
  campaignId: '01M88YG22XTF1T2M9HM4XRMJTV',
  status: 'RUNNING',
  received: 3002,
  imported: 1500,
  duplicates: 0,
  suppressed: 0,
  invalid: 1,
  errors: [{ row: 3002, error: 'email: must be an email address.' }],
  rowsRead: 1501,
  startedAt: '2026-11-25T08:49:22.268Z',
  finishedAt: null,
};
export const EXAMPLES: Record<string, OperationExamples> = {
  login: {
    request: { email: 'admin@acme.com', password: 'correct horse battery' },
    response: {
      token:
        'eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiJhZG1pbkBhY21lLmNvbSIsImlzcyI6Im91dGJvdW5kIiwiaWF0IjoxNzk1NTk2NTQ3LCJleHAiOjE3OTU2Mzk3NDd9.llAD0qnnliiRzrgb_Wz_bBnGAOAURvPv-bmmCTLNtw8',
    },
  },
  createDomain: {
    request: { domainName: 'acme.com', mailingAddress: 'Acme Inc.\n1 Main St\nSpringfield, IL 62701\nUSA', dkimSelector: 'google' },
    response: domain,
  },
  listDomains: {
    response: [
      {
        id: '01M88YEYQ8QB3W8EZPN2XD2QMF',
        domainName: 'acme.com',
        redirectUrl: null,
        dkimSelector: 'google',
        label: null,
        mailingAddress: 'Acme Inc.\n1 Main St\nSpringfield, IL 62701\nUSA',
        mailingAddressParts: null,
        createdAt: '2026-11-25T08:51:52.681Z',
        updatedAt: '2026-11-25T08:51:52.681Z',
        lastCheck: null,
        usedBy: { campaigns: 1, sending: 1, paused: 0, drafts: 0 },
      },
    ],
  },
  updateDomain: {
    request: { label: 'Main brand' },
    errors: {
      409: {
        error:
          'Campaigns send from this domain with its mailing address: clearing it stops their emails. Send again with "confirm": true to clear it anyway.',
        code: 'ADDRESS_IN_USE',
        campaigns: [{ id: '01M88YJ7JSX5V280GMJPWSEHCJ', name: 'Spring outreach', status: 'ACTIVE' }],
      },
    },
  },
  checkDomain: {
    response: {
      domain: 'acme.com',
      spf: 'PASS',
      dkim: 'PASS',
      dmarc: 'PASS',
      blocklists: { 'spamhaus-dbl': 'PASS', surbl: 'PASS', uribl: 'PASS' },
      listUnsubscribeCheck:
        'This engine adds List-Unsubscribe and List-Unsubscribe-Post: List-Unsubscribe=One-Click (RFC 8058 one-click unsubscribe) to every email it sends, so campaigns from acme.com carry them without any DNS record.',
      dkimSelector: 'google',
      details: {
        spf: { records: ['v=spf1 include:_spf.google.com ~all'], lookups: 4, reason: 'One valid SPF record using 4 of 10 DNS lookups.' },
        dkim: {
          selectorsTried: ['google'],
          records: ['v=DKIM1; k=rsa; p=MIIBIjANBgkqhkiG9w0BAQEFAAOCAQ8AMIIBCgKCAQEAz2DMMMT4ekk65SUmG59z331a5fnrlNndhX…'],
          reason: 'A 2048-bit RSA DKIM key.',
        },
        dmarc: {
          records: ['v=DMARC1; p=reject; rua=mailto:dmarc@acme.com'],
          policy: 'reject',
          reason: 'One DMARC record with p=reject: mail that fails is refused.',
        },
        blocklists: {
          'spamhaus-dbl': { query: 'acme.com.dbl.spamhaus.org', answers: [], checked: true, reason: 'Not listed by spamhaus-dbl.' },
          surbl: { query: 'acme.com.multi.surbl.org', answers: [], checked: true, reason: 'Not listed by surbl.' },
          uribl: { query: 'acme.com.multi.uribl.com', answers: [], checked: true, reason: 'Not listed by uribl.' },
        },
      },
      checkedAt: '2026-11-25T08:53:19.897Z',
    },
  },
  getPublicDomainCheck: {
    response: {
      domain: 'example.org',
      spf: 'PASS',
      dkim: 'FAIL',
      dmarc: 'PASS',
      blocklists: { 'spamhaus-dbl': 'PASS', surbl: 'PASS', uribl: 'PASS' },
      listUnsubscribeCheck:
        'This engine adds List-Unsubscribe and List-Unsubscribe-Post: List-Unsubscribe=One-Click (RFC 8058 one-click unsubscribe) to every email it sends, so campaigns from example.org carry them without any DNS record.',
    },
  },
  createMailbox: {
    request: {
      email: 'rita@acme.com',
      domainId: '01M88YEYQ8QB3W8EZPN2XD2QMF',
      smtpHost: 'smtp.acme.com',
      smtpPort: 587,
      imapHost: 'imap.acme.com',
      imapPort: 993,
      authPassword: 'app-password-here',
      senderName: 'Rita Ruiz',
      dailyCap: 30,
    },
    response: mailbox,
  },
  listMailboxes: {
    response: [
      {
        id: '01M88YG1ZZKHWPH5DQTWK1SZPK',
        email: 'rita@acme.com',
        domainId: '01M88YEYQ8QB3W8EZPN2XD2QMF',
        provider: 'SMTP_CUSTOM',
        status: 'ACTIVE',
        auth: 'password',
        dailyCap: 30,
        smtpHost: 'smtp.acme.com',
        smtpPort: 587,
        imapHost: 'imap.acme.com',
        imapPort: 993,
        senderName: 'Rita Ruiz',
        nextSlotAt: 1795722983596,
        lastSendStartedAt: 1795722407626,
        createdAt: '2026-11-25T08:52:28.799Z',
        updatedAt: '2026-11-25T08:52:28.799Z',
        authUsername: null,
      },
    ],
  },
  updateMailbox: { request: { status: 'PAUSED' } },
  createCampaign: {
    request: {
      name: 'Spring outreach',
      aiPromptTemplate: '',
      subject: '{Quick|Short} question, {{firstName}}',
      template: 'Hi {{firstName}},\n\nI noticed {{company}} is growing. Would a short call next week make sense?\n\n{{senderName}}',
      mailboxIds: ['01M88YG1ZZKHWPH5DQTWK1SZPK'],
      steps: [{ waitDays: 3, body: 'Just bumping this, {{firstName}}.' }],
      schedule: { timezone: 'America/New_York', start: '09:00', end: '17:00' },
    },
    response: campaign,
  },
  getCampaign: { response: campaign },
  listCampaigns: {
    response: [
      {
        ...campaign,
        status: 'ACTIVE',
        leadsCount: 4,
        sentCount: 4,
        repliesCount: 1,
        lastActivityAt: '2026-11-25T18:53:17.626Z',
        launchedAt: '2026-11-25T08:52:29.293Z',
        createdAt: '2026-11-25T08:52:28.893Z',
        updatedAt: '2026-11-25T08:52:29.293Z',
        webhookSecured: false,
        senders: [
          {
            mailboxId: '01M88YG1ZZKHWPH5DQTWK1SZPK',
            email: 'rita@acme.com',
            status: 'ACTIVE',
            domainId: '01M88YEYQ8QB3W8EZPN2XD2QMF',
            domainName: 'acme.com',
            hasMailingAddress: true,
          },
        ],
        launch: { canLaunch: true, problems: [] },
        progress: {
          total: 4,
          new: 0,
          contacted: 3,
          replied: 1,
          bounced: 0,
          completed: 0,
          suppressed: 0,
          percentDone: 25,
          planned: 4,
          planning: false,
        },
        domainsCount: 1,
      },
    ],
  },
  updateCampaign: { request: { subject: 'A question about {{company}}' } },
  getLaunchCheck: {
    response: {
      canLaunch: false,
      problems: [{ code: 'NO_SENDERS', message: 'No mailbox is picked: choose the mailboxes this campaign sends from.' }],
      warnings: [
        {
          code: 'FIELD_BLANK',
          message: '{{company}} is blank for 12 of 3000 leads: they get the fallback text or nothing.',
          field: 'company',
          blankCount: 12,
        },
      ],
      passed: ['ADDRESSES', 'UNSUBSCRIBE', 'BOUNCE', 'COPY'],
    },
  },
  launchCampaign: {
    response: {
      ...campaign,
      status: 'ACTIVE',
      leadsCount: 3000,
      sentCount: 0,
      repliesCount: 0,
      lastActivityAt: null,
      launchedAt: '2026-11-25T08:52:29.293Z',
      createdAt: '2026-11-25T08:52:28.893Z',
      updatedAt: '2026-11-25T08:52:29.293Z',
      webhookSecured: false,
      warnings: [],
    },
    errors: {
      422: {
        error: 'The campaign cannot launch yet: 2 problems to fix.',
        problems: [
          {
            code: 'DOMAIN_NO_ADDRESS',
            message: 'The domain acme.com has no mailing address for the footer: add one before sending from it.',
            domainId: '01M88YEYQ8QB3W8EZPN2XD2QMF',
            domainName: 'acme.com',
            mailboxCount: 1,
          },
          { code: 'EMAIL_EMPTY', message: 'The first email needs a subject and a body: they are what is sent when AI is off or fails.' },
        ],
        warnings: [{ code: 'NO_LEADS', message: 'The campaign has no leads yet: nothing will be sent until some are added.' }],
      },
    },
  },
  createCampaignWebhookSecret: {
    response: { campaignId: '01M88YG22XTF1T2M9HM4XRMJTV', webhookSecret: 'whsec_EWYKp6LTnIXN44hFgKDFuGvOKOU53DaqrQo7gqKKHFw' },
  },
  createLead: {
    request: {
      campaignId: '01M88YG22XTF1T2M9HM4XRMJTV',
      email: 'Ana.Lopez@Globex.com',
      firstName: 'Ana',
      company: 'Globex',
      customFields: { industry: 'logistics', employees: 240, country: 'ES' },
    },
    response: lead,
  },
  listLeads: {
    response: {
      leads: [
        {
          id: 'TK92P5NXR380ZA3STSQA3JSG6C',
          campaignId: '01M88YG22XTF1T2M9HM4XRMJTV',
          email: 'ana.lopez@globex.com',
          status: 'CONTACTED',
          firstName: 'Ana',
          lastName: null,
          company: 'Globex',
          customFields: { industry: 'logistics', employees: 240, country: 'ES' },
          variant: 1,
          createdAt: '2026-11-25T08:49:09.264Z',
          updatedAt: '2026-11-25T09:02:41.118Z',
          timezone: 'Europe/Madrid',
          timezoneSource: 'country',
        },
        {
          id: 'W4FHS9J6HTDCVG7PTV5XQKS70M',
          campaignId: '01M88YG22XTF1T2M9HM4XRMJTV',
          email: 'bo.chen@initech.com',
          status: 'NEW',
          firstName: 'Bo',
          lastName: 'Chen',
          company: 'Initech',
          customFields: { timezone: 'Asia/Shanghai' },
          variant: null,
          createdAt: '2026-11-25T08:49:09.301Z',
          updatedAt: '2026-11-25T08:49:09.301Z',
          timezone: 'Asia/Shanghai',
          timezoneSource: 'lead',
        },
      ],
      total: 3000,
      nextCursor: 'eyJwayI6IkxFQUQjVzRGSFM5SjZIVERDVkc3UFRWNVhRS1M3ME0ifQ',
    },
  },
  createLeadFromWebhook: {
    request: { campaignId: '01M88YG22XTF1T2M9HM4XRMJTV', email: 'dee@umbrella.com', firstName: 'Dee' },
    response: { accepted: true },
  },
  importLeads: {
    response: {
      importId: '01M88Y9ZP68BEMVTACTSRRXJ36',
      campaignId: '01M88YG22XTF1T2M9HM4XRMJTV',
      status: 'COMPLETED',
      received: 3002,
      imported: 2998,
      duplicates: 2,
      suppressed: 1,
      invalid: 1,
      errors: [{ row: 3002, error: 'email: must be an email address.' }],
      rowsRead: 3002,
      startedAt: '2026-11-25T08:49:09.843Z',
      finishedAt: '2026-11-25T08:49:11.520Z',
    },
  },
  createLeadImport: {
    request: { campaignId: '01M88YG22XTF1T2M9HM4XRMJTV', bytes: 69876 },
    response: {
      importId: '01M88YABTWS52F6K53C24Z6FMM',
      campaignId: '01M88YG22XTF1T2M9HM4XRMJTV',
      status: 'RUNNING',
      received: 0,
      imported: 0,
      duplicates: 0,
      suppressed: 0,
      invalid: 0,
      errors: [],
      rowsRead: 0,
      startedAt: '2026-11-25T08:49:22.268Z',
      finishedAt: null,
      upload: {
        url: 'https://outbound-uploads-abc123.s3.eu-west-1.amazonaws.com/imports/01M88YABTWS52F6K53C24Z6FMM.csv?X-Amz-Algorithm=AWS4-HMAC-SHA256&X-Amz-Signature=…',
        method: 'PUT',
        headers: { 'content-type': 'text/csv' },
        expiresAt: '2026-11-25T09:04:22.268Z',
      },
    },
  },
  getLeadImport: { response: leadImport },
  getNextSend: {
    response: {
      leadId: 'TK92P5NXR380ZA3STSQA3JSG6C',
      campaignId: '01M88YG22XTF1T2M9HM4XRMJTV',
      step: 1,
      earliestAt: '2026-11-30T14:00:00.000Z',
      timezone: 'America/New_York',
      timezoneSource: 'campaign',
      blockedBy: [
        { rule: 'waitDays', until: '2026-11-28T09:02:41.118Z', detail: 'A follow-up waits 3 days after the email before it.' },
        { rule: 'window', until: '2026-11-25T14:00:00.000Z', detail: 'Outside the sending window (09:00 to 17:00 in America/New_York).' },
      ],
    },
  },
  eraseLead: { request: { email: 'ana.lopez@globex.com' }, response: { erased: 1 } },
  getConversation: {
    response: {
      leadId: 'TK92P5NXR380ZA3STSQA3JSG6C',
      campaignId: '01M88YG22XTF1T2M9HM4XRMJTV',
      mailboxId: '01M88Y4W3N0J2Q7V5X8K1B6C9D',
      messages: [
        {
          direction: 'out',
          step: 0,
          messageId: '5f0c2a9e8b7d4c3e1a2b3c4d5e6f7a8b@acme-mail.com',
          subject: 'Quick question, Ana',
          text: 'Hi Ana, ...\n\nAcme Inc, 1 Main St, Springfield\nUnsubscribe: https://outbound.acme.com/unsubscribe/eyJ...\n',
          at: '2026-11-25T09:02:41.118Z',
        },
        {
          direction: 'in',
          replyId: 'Xq3v9c1Zr8bKf2LmN0pQ4sT6uW',
          fromEmail: 'ana.lopez@globex.com',
          subject: 'Re: Quick question, Ana',
          text: 'Sounds good, what does Tuesday look like?\n\nOn Tue, Nov 25 ... wrote:\n> Hi Ana, ...',
          at: '2026-11-25T11:40:03.000Z',
          status: 'INTERESTED',
        },
      ],
      nextCursor: null,
    },
  },
  sendMessage: {
    request: { text: 'Tuesday at 10:00 works. I will send an invite.' },
    response: { messageId: '9a1b2c3d4e5f60718293a4b5c6d7e8f9@acme-mail.com' },
  },
  listReplies: {
    response: {
      replies: [
        {
          id: 'nDUzxZzEibgBkiz0p8OEWvX2FO',
          campaignId: '01M88YG22XTF1T2M9HM4XRMJTV',
          leadId: 'TK92P5NXR380ZA3STSQA3JSG6C',
          mailboxId: '01M88YG1ZZKHWPH5DQTWK1SZPK',
          fromEmail: 'ana.lopez@globex.com',
          subject: 'Re: Short question, Ana',
          snippet: 'Thanks, not right now. Maybe next quarter.',
          receivedAt: '2026-11-25T08:52:30.000Z',
          status: 'NOT_NOW',
          statusSource: 'rules',
          referral: null,
          followUpOn: '2027-01-01',
          read: false,
          snoozedUntil: null,
        },
      ],
      nextCursor: null,
    },
  },
  updateReply: { request: { status: 'MEETING_BOOKED', read: true }, response: reply },
  getQueueStatus: {
    response: {
      counts: { waiting: 0, active: 0, delayed: 2, completed: 7, failed: 0, unconfirmed: 1 },
      isPaused: false,
      jobs: [
        {
          id: 'QADVCDFWP6A11HD6MXE4CG4A34.0',
          kind: 'campaign',
          campaignId: '01M88YG22XTF1T2M9HM4XRMJTV',
          leadId: 'QADVCDFWP6A11HD6MXE4CG4A34',
          step: 0,
          mailboxId: '01M88YG1ZZKHWPH5DQTWK1SZPK',
          state: 'delayed',
          dueAt: '2026-11-27T01:24:07.800Z',
          attempts: 0,
          lastError: null,
        },
      ],
      throttling: { cadenceFloorSeconds: 480, jitterSeconds: 120 },
    },
  },
  pauseQueue: { request: { paused: true } },
  setAiKey: { request: { apiKey: 'sk-ant-api03-…' } },
  listAiKeys: {
    response: [
      { provider: 'openai', configured: false },
      { provider: 'anthropic', configured: true },
    ],
  },
  createWebhook: {
    request: { url: 'https://hooks.zapier.com/hooks/catch/123456/abcdef/', events: ['reply.received', 'email.bounced'] },
    response: {
      id: '01JD7Q4X9V2M8N3P5R6S7T8W9Y',
      url: 'https://hooks.zapier.com/hooks/catch/123456/abcdef/',
      events: ['reply.received', 'email.bounced'],
      secret: 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw2J7oBgqKsg0=',
      createdAt: '2026-11-25T18:00:00.000Z',
    },
  },
  listWebhooks: {
    response: {
      webhooks: [
        {
          id: '01JD7Q4X9V2M8N3P5R6S7T8W9Y',
          url: 'https://hooks.zapier.com/hooks/catch/123456/abcdef/',
          events: ['reply.received', 'email.bounced'],
          createdAt: '2026-11-25T18:00:00.000Z',
        },
      ],
    },
  },
  listWebhookDeliveries: {
    response: {
      deliveries: [
        {
          eventId: 'evt_3f1c0e9a7b2d4c6e8f0a1b2c3d',
          type: 'reply.received',
          attempts: 3,
          lastStatus: 503,
          lastAttemptAt: '2026-11-25T18:12:30.000Z',
          delivered: false,
        },
        {
          eventId: 'evt_9a8b7c6d5e4f3a2b1c0d9e8f7a',
          type: 'email.bounced',
          attempts: 1,
          lastStatus: 200,
          lastAttemptAt: '2026-11-25T18:04:10.000Z',
          delivered: true,
        },
      ],
    },
  },
  createSeedInbox: {
    request: { email: 'acme.seed@gmail.com', password: 'app-password-here' },
    response: {
      id: '01M88YGZ2K7TZRZC5C3XYQ5K01',
      email: 'acme.seed@gmail.com',
      provider: 'GOOGLE',
      imapHost: 'imap.gmail.com',
      imapPort: 993,
      username: null,
      spamFolder: '[Gmail]/Spam',
      createdAt: '2026-11-25T08:52:58.579Z',
      unsubscribedAt: null,
    },
  },
  startPlacementRun: {
    request: { campaignId: '01M88YG22XTF1T2M9HM4XRMJTV' },
    response: {
      id: '01M88YH0KRBP750BHSZ4PJQKXY',
      domainId: '01M88YEYQ8QB3W8EZPN2XD2QMF',
      status: 'SENDING',
      campaignId: '01M88YG22XTF1T2M9HM4XRMJTV',
      startedAt: '2026-11-25T08:53:00.152Z',
      completedAt: null,
      seeds: 2,
      sent: 0,
      probes: [
        {
          seedId: '01M88YGZ2K7TZRZC5C3XYQ5K01',
          seedEmail: 'acme.seed@gmail.com',
          provider: 'GOOGLE',
          mailboxId: '01M88YG1ZZKHWPH5DQTWK1SZPK',
          state: 'WAITING',
          sentAt: null,
          reason: null,
        },
        {
          seedId: '01M88YH0EFDARSA4J4281JR6MK',
          seedEmail: 'acme.seed@outlook.com',
          provider: 'MICROSOFT',
          mailboxId: '01M88YG1ZZKHWPH5DQTWK1SZPK',
          state: 'WAITING',
          sentAt: null,
          reason: null,
        },
      ],
      rollup: null,
    },
  },
  getPlacementSample: {
    response: {
      domainId: '01M88YEYQ8QB3W8EZPN2XD2QMF',
      sampledAt: '2026-11-25T09:40:12.004Z',
      sampleSize: 2,
      inbox: 1,
      spam: 1,
      missing: 0,
      byProvider: { GOOGLE: { inbox: 1, spam: 0, missing: 0 }, MICROSOFT: { inbox: 0, spam: 1, missing: 0 } },
    },
  },
  updateInstanceSettings: {
    response: { error: 'This route was removed: a sending domain now carries its own mailing address (PATCH /v1/domains/{id}).' },
  },
};
