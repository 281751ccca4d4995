/**
 * The connector's pages: sign-in, consent, the account's connections, and errors. Server-rendered
 * HTML with its CSS inline: no script, no external resource (fonts, images, styles), so the page
 * works offline, under a strict CSP, and in a headless browser alike.
 */
import type { ShopRecord } from '../world.ts'
import type { Connection, ConnectorClient, ConnectorUser, connectionEnded } from './store.ts'
import type { ConnectorTool } from './tools.ts'

const escape = (text: string): string => text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`)

const STYLE = `
*{box-sizing:border-box}
body{margin:0;font:15px/1.5 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;color:#1c2430;background:#f3f5f8}
header{background:#16324f;color:#fff;padding:14px 24px;display:flex;align-items:center;gap:12px}
header .mark{width:28px;height:28px;border-radius:7px;background:#2f80ed;display:grid;place-items:center;font-weight:700}
header .sandbox{margin-left:auto;font-size:12px;background:#f2c94c;color:#3d2f00;padding:2px 8px;border-radius:10px}
main{max-width:760px;margin:28px auto;padding:0 16px}
.card{background:#fff;border:1px solid #d9dee5;border-radius:10px;padding:24px 28px;margin-bottom:18px}
h1{font-size:22px;margin:0 0 6px}
h2{font-size:16px;margin:22px 0 8px}
p.lead{margin:0 0 10px;color:#46505c}
.who{display:flex;gap:14px;align-items:center;padding:12px 14px;background:#f7f9fb;border:1px solid #e3e7ec;border-radius:8px}
.who .app{font-weight:600}
.muted{color:#68727e;font-size:13px}
label.row{display:flex;gap:10px;align-items:flex-start;padding:6px 4px;border-radius:6px;cursor:pointer}
label.row:hover{background:#f3f6fa}
label.row input{margin-top:4px}
fieldset{border:1px solid #e3e7ec;border-radius:8px;margin:0 0 12px;padding:8px 12px 10px}
legend{font-weight:600;padding:0 6px}
.cols{display:grid;grid-template-columns:1fr 1fr;gap:0 18px}
.kind{font-size:12px;text-transform:uppercase;letter-spacing:.04em;color:#68727e;margin:6px 0 2px}
.kind.write{color:#a04a00}
code{font:12px/1.4 ui-monospace,SFMono-Regular,Menlo,monospace;background:#eef1f5;padding:1px 5px;border-radius:4px}
.actions{display:flex;gap:12px;justify-content:flex-end;margin-top:18px}
.sticky{position:sticky;bottom:0;background:#fff;border-top:1px solid #e3e7ec;margin:18px -28px -24px;padding:14px 28px;border-radius:0 0 10px 10px;align-items:center}
.sticky .muted{margin-right:auto}
details>summary{cursor:pointer;font-weight:600;padding:4px 0}
.area{border-top:1px solid #eef1f5;padding:2px 0}.area details>summary{font-weight:400;font-size:13px;color:#2f6fdb;padding:0 4px 4px 34px}
label.group strong{font-weight:600}
details[open]>summary{margin-bottom:4px}
button{font:inherit;padding:9px 20px;border-radius:7px;border:1px solid #c4ccd6;background:#fff;cursor:pointer}
button.primary{background:#2f6fdb;border-color:#2f6fdb;color:#fff;font-weight:600}
button.danger{color:#b3261e;border-color:#e2b4b0}
.error{background:#fdecea;border:1px solid #f3b8b2;color:#8a1c13;padding:10px 14px;border-radius:8px;margin-bottom:14px}
.note{background:#fff8e1;border:1px solid #f0dca0;padding:10px 14px;border-radius:8px;font-size:13px}
input[type=email],input[type=password]{width:100%;font:inherit;padding:9px 11px;border:1px solid #c4ccd6;border-radius:7px;margin:4px 0 12px}
table{width:100%;border-collapse:collapse}
td,th{text-align:left;padding:8px 6px;border-bottom:1px solid #eef1f5;vertical-align:top;font-size:14px}
.badge{white-space:nowrap;font-size:12px;padding:1px 8px;border-radius:10px;background:#e6f4ea;color:#1e6b34}
.badge.revoked{background:#f1f3f4;color:#5f6368}
`

function layout(title: string, body: string): string {
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1">
<meta name="referrer" content="no-referrer"><title>${escape(title)}</title><style>${STYLE}</style></head>
<body><header><div class="mark">S</div><div><strong>Shop Analytics</strong> · assistant connector</div><span class="sandbox">shoptwin sandbox</span></header>
<main>${body}</main></body></html>`
}

const hidden = (name: string, value: string) => `<input type="hidden" name="${escape(name)}" value="${escape(value)}">`
const errorBox = (error?: string) => (error ? `<div class="error" role="alert">${escape(error)}</div>` : '')

/** The sign-in form (before consent, and before the connections page). */
export function signInPage({ action, fields, client, error }: { action: string; fields: Record<string, string>; client?: ConnectorClient; error?: string }): string {
  const intro = client
    ? `<p class="lead"><strong>${escape(client.client_name)}</strong> wants to connect to your Shop Analytics account. Sign in to choose what it may do.</p>`
    : `<p class="lead">Sign in to see the assistants connected to your account.</p>`
  return layout(
    'Sign in · Shop Analytics',
    `<div class="card"><h1>Sign in</h1>${intro}${errorBox(error)}
<form method="post" action="${escape(action)}">${Object.entries(fields).map(([k, v]) => hidden(k, v)).join('')}
<label for="email">Email</label><input id="email" type="email" name="email" autocomplete="username" required>
<label for="password">Password</label><input id="password" type="password" name="password" autocomplete="current-password" required>
<div class="actions"><button class="primary" type="submit">Sign in</button></div></form></div>`,
  )
}

function toolRow(tool: ConnectorTool, checked: boolean): string {
  return `<label class="row"><input type="checkbox" name="tool" value="${escape(tool.name)}"${checked ? ' checked' : ''}><span><code>${escape(tool.name)}</code><br><span class="muted">${escape(tool.title)}</span></span></label>`
}

/**
 * The consent form's group choices, expanded by the server when the form is posted (the page has no
 * script): `shop=@all` is every shop of the account at consent time; `tool=@read` every read tool,
 * `tool=@all` every tool, `tool=@area:<area>` every tool of an area. Individual names stay as they are.
 */
export const CONSENT_GROUPS = { allShops: '@all', readTools: '@read', allTools: '@all', area: (area: string) => `@area:${area}` } as const

/** The shops a posted consent form chose: the names it ticked, or every shop for `@all`; unknown ids dropped. */
export function chosenShops(values: string[], shops: ShopRecord[]): string[] {
  const ids = shops.map((s) => s.shop_id)
  return values.includes(CONSENT_GROUPS.allShops) ? ids : ids.filter((id) => values.includes(id))
}

/** The tools a posted consent form chose, its groups expanded, in the catalogue's order; unknown names dropped. */
export function chosenTools(values: string[], tools: ConnectorTool[]): string[] {
  const chosen = (t: ConnectorTool) =>
    values.includes(t.name) || values.includes(CONSENT_GROUPS.allTools) || (t.kind === 'read' && values.includes(CONSENT_GROUPS.readTools)) || values.includes(CONSENT_GROUPS.area(t.area))
  return tools.filter(chosen).map((t) => t.name)
}

/**
 * The consent page: the account's shops and the tools, allow or deny. Groups first ("All shops",
 * "All read tools", "All tools", each area), expanded by the server on Allow; each area opens to its
 * tools one by one (closed unless one of them is ticked), so the page stays short.
 */
export function consentPage({
  action,
  requestId,
  client,
  redirectUri,
  user,
  shops,
  tools,
  checked = { shops: [], tools: [] },
  error,
}: {
  action: string
  requestId: string
  client: ConnectorClient
  redirectUri: string
  user: ConnectorUser
  shops: ShopRecord[]
  tools: ConnectorTool[]
  /** The form's values as posted (group values included), when the page is shown again. */
  checked?: { shops: string[]; tools: string[] }
  error?: string
}): string {
  const areas = new Map<string, ConnectorTool[]>()
  for (const tool of tools) areas.set(tool.area, [...(areas.get(tool.area) ?? []), tool])
  const redirectHost = (() => {
    try {
      return new URL(redirectUri).host
    } catch {
      return redirectUri
    }
  })()
  const box = (name: 'shop' | 'tool', value: string, label: string, note: string) =>
    `<label class="row group"><input type="checkbox" name="${name}" value="${escape(value)}"${(name === 'shop' ? checked.shops : checked.tools).includes(value) ? ' checked' : ''}><span><strong>${escape(label)}</strong> <span class="muted">${escape(note)}</span></span></label>`
  const shopRows = shops
    .map(
      (s) =>
        `<label class="row"><input type="checkbox" name="shop" value="${escape(s.shop_id)}"${checked.shops.includes(s.shop_id) ? ' checked' : ''}><span><strong>${escape(s.shop_name)}</strong><br><span class="muted">Plan ${escape(s.plan)}${s.is_active ? '' : ' · inactive'} · <code>${escape(s.shop_id)}</code></span></span></label>`,
    )
    .join('')
  const reads = tools.filter((t) => t.kind === 'read').length
  const toolSets = [...areas]
    .map(([area, list]) => {
      const column = (kind: 'read' | 'write') => {
        const rows = list.filter((t) => t.kind === kind)
        return `<div><div class="kind ${kind}">${kind === 'read' ? 'Read' : 'Write: changes data'}</div>${rows.length ? rows.map((t) => toolRow(t, checked.tools.includes(t.name))).join('') : '<span class="muted">none</span>'}</div>`
      }
      const areaReads = list.filter((t) => t.kind === 'read').length
      const open = list.some((t) => checked.tools.includes(t.name))
      return `<div class="area">${box('tool', CONSENT_GROUPS.area(area), area, areaReads === list.length ? `${list.length} read tool${list.length === 1 ? '' : 's'}` : `${list.length} tools: ${areaReads} read, ${list.length - areaReads} write`)}<details${open ? ' open' : ''}><summary>Choose ${escape(area)} tools one by one</summary><div class="cols">${column('read')}${column('write')}</div></details></div>`
    })
    .join('')
  return layout(
    `Allow ${client.client_name}? · Shop Analytics`,
    `<div class="card"><h1>Allow ${escape(client.client_name)} to use your shops?</h1>
<div class="who"><div><div class="app">${escape(client.client_name)}</div><div class="muted">Signed in as ${escape(user.name)} (${escape(user.email)}). After you answer you are sent back to <code>${escape(redirectHost)}</code>.</div></div></div>
<p class="muted">The application chose its own name when it registered; it is not verified. Only allow applications you started yourself. You can revoke this connection at any time on the <a href="connections">connections page</a>.</p>
${errorBox(error)}
<form method="post" action="${escape(action)}">${hidden('request_id', requestId)}
<fieldset><legend>Shops it may use</legend>${box('shop', CONSENT_GROUPS.allShops, 'All shops', `the ${shops.length} shops of this account`)}<div class="cols">${shopRows}</div></fieldset>
<fieldset><legend>Tools it may call</legend><p class="muted">Each tool does what the API endpoint of the same name does, on the shops chosen above, and is recorded in the activity log. A group includes every tool in it, ticked below or not.</p>
<div class="cols">${box('tool', CONSENT_GROUPS.readTools, 'All read tools', `${reads} tools that change nothing`)}${box('tool', CONSENT_GROUPS.allTools, 'All tools', `${tools.length}, writes included`)}</div>
<h2>By area</h2>${toolSets}</fieldset>
<div class="actions sticky"><span class="muted">Nothing is shared until you press Allow.</span><button type="submit" name="decision" value="deny">Deny</button><button class="primary" type="submit" name="decision" value="allow">Allow</button></div>
</form></div>`,
  )
}

/** The account's connections, each live one with a revoke button. */
export function connectionsPage({ user, connections, shops, action }: { user: ConnectorUser; connections: Array<Connection & { ended?: ReturnType<typeof connectionEnded> }>; shops: ShopRecord[]; action: string }): string {
  const ENDED = { user: 'revoked', client: 'revoked by the application', security: 'ended: a code or refresh token was reused' } as const
  const shopName = (id: string) => shops.find((s) => s.shop_id === id)?.shop_name ?? id
  const rows = connections
    .map(
      (c) => `<tr><td><strong>${escape(c.client_name)}</strong><br><span class="muted">since ${escape(c.created_at.slice(0, 10))}${c.last_used_at ? ` · last used ${escape(c.last_used_at.slice(0, 10))}` : ''}</span></td>
<td>${c.shops.map((s) => escape(shopName(s))).join('<br>')}</td><td>${c.tools.length} tool${c.tools.length === 1 ? '' : 's'}<br><span class="muted">${c.tools.slice(0, 4).map((t) => `<code>${escape(t)}</code>`).join(' ')}${c.tools.length > 4 ? ' …' : ''}</span></td>
<td>${c.ended ? `<span class="badge revoked">${ENDED[c.ended.by]} ${escape(c.ended.at.slice(0, 10))}</span>` : `<form method="post" action="${escape(action)}">${hidden('connection_id', c.connection_id)}<button class="danger" type="submit">Revoke</button></form>`}</td></tr>`,
    )
    .join('')
  return layout(
    'Connections · Shop Analytics',
    `<div class="card"><h1>Connected assistants</h1><p class="lead">Signed in as ${escape(user.name)} (${escape(user.email)}). Revoking a connection stops its tokens at once.</p>
${connections.length ? `<table><thead><tr><th>Application</th><th>Shops</th><th>Tools</th><th></th></tr></thead><tbody>${rows}</tbody></table>` : '<p>No assistant has been connected yet.</p>'}</div>`,
  )
}

/** An error the user sees (no redirect is safe: unknown client, redirect URI not registered...). */
export function errorPage(title: string, message: string): string {
  return layout(`${title} · Shop Analytics`, `<div class="card"><h1>${escape(title)}</h1><div class="error" role="alert">${escape(message)}</div><p class="muted">Go back to the application and start the connection again.</p></div>`)
}
