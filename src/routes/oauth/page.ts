/** Server-rendered HTML of the sign-in and consent page (no JavaScript). Everything shown is escaped. */

export function escapeHtml(value: string): string {
  return value.replace(/[&<>"'`=\/]/g, (ch) => `&#${ch.charCodeAt(0)};`);
}

/** Hidden copies of the authorize parameters, so each form post re-validates the whole request. */
export type Hidden = Record<string, string>;

function hiddenFields(hidden: Hidden): string {
  return Object.entries(hidden)
    .map(([k, v]) => `<input type="hidden" name="${escapeHtml(k)}" value="${escapeHtml(v)}">`)
    .join("\n      ");
}

function layout(title: string, body: string): string {
  return `<!doctype html>
<html lang="en">
<head>
  <meta charset="utf-8">
  <meta name="viewport" content="width=device-width, initial-scale=1">
  <meta name="referrer" content="no-referrer">
  <title>${escapeHtml(title)}</title>
  <style>
    body { font-family: system-ui, sans-serif; max-width: 32rem; margin: 3rem auto; padding: 0 1rem; color: #1a1a1a; }
    label { display: block; margin: 0.8rem 0 0.2rem; font-weight: 600; }
    input[type=email], input[type=password], input[type=text], select { width: 100%; padding: 0.4rem; box-sizing: border-box; }
    button { margin-top: 1rem; margin-right: 0.5rem; padding: 0.5rem 1.2rem; }
    .error { color: #a00; font-weight: 600; }
    .unverified { color: #8a5a00; font-weight: 600; }
    code { background: #f2f2f2; padding: 0 0.2rem; }
  </style>
</head>
<body>
${body}
</body>
</html>
`;
}

/** The fixed error page (unknown client, missing or unregistered redirect): nothing from the request. */
export function errorPage(): string {
  return layout(
    "Authorization error",
    `  <h1>Authorization request refused</h1>
  <p>This authorization request cannot be completed: the application is unknown or its redirect address is
  not registered. You were not redirected. Close this page and connect again from your application.</p>`,
  );
}

/** A form that expired or lost its token (CSRF check failed): fixed text, never redirects. */
export function formExpiredPage(): string {
  return layout(
    "Form expired",
    `  <h1>This form has expired</h1>
  <p>The form could not be verified. Go back to your application and start connecting again.</p>`,
  );
}

export function signInPage(input: { hidden: Hidden; csrf: string; error?: string; email?: string }): string {
  const error = input.error ? `\n  <p class="error" role="alert">${escapeHtml(input.error)}</p>` : "";
  return layout(
    "Sign in",
    `  <h1>Sign in</h1>
  <p>Sign in to connect an application to your projects.</p>${error}
  <form method="post" action="/oauth/authorize">
      ${hiddenFields(input.hidden)}
      <input type="hidden" name="csrf_token" value="${escapeHtml(input.csrf)}">
      <input type="hidden" name="action" value="signin">
      <label for="email">Email</label>
      <input id="email" name="email" type="email" autocomplete="username" required value="${
      escapeHtml(input.email ?? "")
    }">
      <label for="password">Password</label>
      <input id="password" name="password" type="password" autocomplete="current-password" required>
      <button type="submit">Sign in</button>
  </form>`,
  );
}

/**
 * When write was asked for, the user may grant less: `read and write` (default) or `read only`. A
 * viewer's projects grant `read` whatever is chosen.
 */
function accessChoice(): string {
  return `<fieldset id="access-choice">
        <legend>Access to grant</legend>
        <label><input type="radio" id="access-write" name="access" value="write" checked> Read and write</label>
        <label><input type="radio" id="access-read" name="access" value="read"> Read only</label>
      </fieldset>`;
}

export function consentPage(input: {
  hidden: Hidden;
  csrf: string;
  clientName: string;
  registered: boolean;
  redirectHost: string;
  userEmail: string;
  access: "read" | "write";
  askedWrite: boolean;
  projects: { id: string; name: string; orgName: string; access: "read" | "write" }[];
  error?: string;
}): string {
  const error = input.error ? `\n  <p class="error" role="alert">${escapeHtml(input.error)}</p>` : "";
  const options = input.projects
    .map((p) =>
      `<option value="${escapeHtml(p.id)}">${escapeHtml(p.name)} (${
        escapeHtml(p.orgName)
      }, ${p.access})</option>`
    )
    .join("\n        ");
  const capped = input.askedWrite && input.access === "read"
    ? " (write was asked for, but your role allows read only)"
    : "";
  return layout(
    "Authorize application",
    `  <h1>Authorize application</h1>${error}
  <p><strong id="client-name">${escapeHtml(input.clientName)}</strong>
  <span class="unverified">(unverified${input.registered ? "" : ", not registered"})</span>
  wants to access your account.</p>
  <p>It will be sent to <code id="redirect-host">${escapeHtml(input.redirectHost)}</code>.</p>
  <p>Access asked for: <strong id="access">${input.access}</strong>${escapeHtml(capped)}</p>
  <p>Signed in as ${escapeHtml(input.userEmail)}.</p>
  <form method="post" action="/oauth/authorize">
      ${hiddenFields(input.hidden)}
      <input type="hidden" name="csrf_token" value="${escapeHtml(input.csrf)}">
      <label for="project">Project</label>
      <select id="project" name="project_id">
        ${options || '<option value="">(no projects yet: name a new one below)</option>'}
      </select>
      ${input.askedWrite ? accessChoice() : ""}
      <label for="new_project_name">New project name</label>
      <input id="new_project_name" name="new_project_name" type="text" maxlength="100"
        placeholder="Leave empty to use the project chosen above">
      <button type="submit" name="action" value="approve">Approve</button>
      <button type="submit" name="action" value="deny">Deny</button>
  </form>`,
  );
}
