/**
 * The example objects that several operations show (the login ticket WEB-12, its ledger entries, the
 * refusal of an unknown ticket), defined once; each operation's examples spread or reference them.
 */

/** The fields of a ticket nobody has begun, reviewed or planned yet. */
export const untouchedTicket = {
  criteriaAcknowledgedAt: null,
  assignee: null,
  subAgentName: null,
  reviewerAgentId: null,
  reviewHistory: [],
  reviewHandoff: null,
  parentId: null,
  parentTicketId: null,
  branch: null,
  sprintId: null,
  humanOnly: false,
  storyPoints: null,
  noArtifact: false,
  noArtifactReason: null,
};

/** Ticket WEB-12 as `GET /ticket` shows it, fresh in the backlog. */
export const loginTicket = {
  id: "a9cc49b7-709e-40f1-8c63-32ce857b1915",
  number: 12,
  ticketRef: "WEB-12",
  title: "Login form",
  description: "Email and password sign-in for the web app",
  type: "feature",
  tags: [
    "auth",
    "priority:high",
  ],
  priority: "high",
  status: "backlog",
  expectedFiles: [
    "src/login.ts",
    "src/login.test.ts",
  ],
  doneDefinition: "A user can sign in with email and password",
  verificationCommand: "deno test src/login.test.ts",
  riskClass: "local",
  outOfScope: null,
  acceptanceCriteria: [
    {
      title: "Valid credentials sign in",
      requiresEvidence: true,
    },
    {
      title: "A wrong password shows an error",
      requiresEvidence: false,
    },
  ],
  ...untouchedTicket,
  createdByAgentId: "c98cd9df-f9ef-4b3c-a11e-281cf7ab62a8",
  statusChangedAt: "2026-11-26T23:02:00.345Z",
  createdAt: "2026-11-26T23:02:00.345Z",
  updatedAt: "2026-11-26T23:02:00.345Z",
};

/** The `nextAction` of WEB-12 while it waits in the backlog. */
export const beginLoginTicket = {
  action: "PICK_TICKET",
  message: "Open and unassigned: begin it (claims its files and starts it)",
  endpoint: "POST /begin",
  payloadHint: {
    ticketId: "a9cc49b7-709e-40f1-8c63-32ce857b1915",
    files: [
      "src/login.ts",
      "src/login.test.ts",
    ],
    acknowledgeCriteria: true,
  },
};

/** The refusal of a ticket reference that does not resolve (`WEB-99`). */
export const ticketNotFound = {
  error: {
    code: "TICKET_NOT_FOUND",
    message: 'Cannot find ticket "WEB-99" in this project',
    details: {
      ref: "WEB-99",
      recovery: {
        action: "RESOLVE_TICKET_REF",
        endpoint: "GET /board",
        payloadHint: null,
        "hint":
          'No ticket "WEB-99" in this project: list the board and use a ticket\'s id or its <PREFIX>-<number> key',
      },
    },
  },
};

/** WEB-12's TESTED entry as the context ledger lists it. */
export const testedEntry = {
  id: "cbcc6671-9bc6-4727-b880-95f6d7ba5a65",
  type: "TESTED",
  content: "deno test src/login.test.ts: 6 passed",
  source: "agent",
  audit: false,
  agentId: "c98cd9df-f9ef-4b3c-a11e-281cf7ab62a8",
  agentName: "builder",
  subAgentName: null,
  sessionId: "b9f09825-a406-4f0c-87ce-7ade8a88c067",
  ticketId: "a9cc49b7-709e-40f1-8c63-32ce857b1915",
  threadId: null,
  fileRef: null,
  lineRef: null,
  labels: [],
  payload: null,
  severity: null,
  createdAt: "2026-11-26T23:02:02.461Z",
};

/** WEB-12's PROGRESS entry as the context ledger lists it. */
export const progressEntry = {
  id: "a414ee1d-4261-4a20-8037-010e25f013ba",
  type: "PROGRESS",
  content: "Built the login form",
  source: "agent",
  audit: false,
  agentId: "c98cd9df-f9ef-4b3c-a11e-281cf7ab62a8",
  agentName: "builder",
  subAgentName: null,
  sessionId: "b9f09825-a406-4f0c-87ce-7ade8a88c067",
  ticketId: "a9cc49b7-709e-40f1-8c63-32ce857b1915",
  threadId: null,
  fileRef: null,
  lineRef: null,
  labels: [],
  payload: null,
  severity: null,
  createdAt: "2026-11-26T23:02:02.452Z",
};

/** The fields a full ledger entry (`GET /ledger`) adds to the context view of it. */
export const entryDetail = {
  tokensUsed: null,
  activity: null,
  envHealth: null,
  blockedByFile: null,
};
