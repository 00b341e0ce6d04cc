// The page of `mdplan serve` (docs/serve.md): plain DOM, no framework. Everything that comes from a plan or an
// agent (ids, names, questions, notes, logs) goes in as text (textContent, createTextNode), never as markup.
'use strict'
;(() => {
  const token = new URLSearchParams(location.search).get('token')
  const state = {plans: [], plan: 0, view: null, sort: 'rank', desc: false, filter: '', tab: 'agents', agent: null, attempt: null, logNext: 0, dagShape: null, dag: null, ticks: 0}
  const $ = (id) => document.getElementById(id)
  const el = (tag, attrs, ...children) => {
    const node = document.createElement(tag)
    for (const [key, value] of Object.entries(attrs || {})) {
      if (key === 'class') node.className = value
      else if (key.startsWith('on')) node.addEventListener(key.slice(2), value)
      else node.setAttribute(key, value)
    }
    for (const child of children) node.append(child instanceof Node ? child : document.createTextNode(String(child)))
    return node
  }
  const api = async (path, body) => {
    const headers = {'content-type': 'application/json'}
    if (token) headers['x-mdplan-token'] = token
    const response = await fetch(path, body === undefined ? {headers} : {method: 'POST', headers, body: JSON.stringify(body)})
    const data = await response.json()
    if (!response.ok) throw new Error(data.error || response.statusText)
    return data
  }
  const say = (text) => ($('message').textContent = text)
  const statusClass = (status) => (['pending', 'in_progress', 'completed', 'failed', 'needs_input', 'awaiting_review'].includes(status) ? status : status.toLowerCase() === 'awaiting review' ? 'awaiting_review' : 'held')
  // How long since `since`; `coarse`: to the minute.
  const ago = (since, coarse = false) => {
    if (!since) return ''
    const s = Math.max(0, Math.round((Date.now() - since) / 1000))
    if (coarse) return s < 60 ? '<1m' : s < 3600 ? `${Math.floor(s / 60)}m` : `${Math.floor(s / 3600)}h ${Math.floor((s % 3600) / 60)}m`
    return s < 60 ? `${s}s` : s < 3600 ? `${Math.floor(s / 60)}m ${s % 60}s` : `${Math.floor(s / 3600)}h ${Math.floor((s % 3600) / 60)}m`
  }

  async function loadPlans() {
    state.plans = await api('/api/plans')
    const nav = $('plans')
    nav.replaceChildren()
    if (state.plans.length < 2) return
    const depth = (plan) => (plan.parent === undefined ? 0 : 1 + depth(state.plans[plan.parent]))
    for (const plan of state.plans) {
      const label = `${'· '.repeat(depth(plan))}${plan.agent ? plan.agent + ' → ' : ''}${plan.name}`
      nav.append(el('button', {type: 'button', class: plan.index === state.plan ? 'on' : '', onclick: () => selectPlan(plan.index)}, label))
    }
  }

  async function selectPlan(index) {
    state.plan = index
    state.rowsBuilt = new Map()
    state.agent = null
    state.dagShape = null
    $('detail').hidden = true
    for (const [i, button] of [...$('plans').children].entries()) button.className = i === index ? 'on' : ''
    listen()
  }

  // One refresh at a time, and at most one more after it: a run's burst of writes costs the page two reads.
  let refreshing = null
  let again = false
  async function refresh() {
    if (refreshing) {
      again = true
      return refreshing
    }
    refreshing = load().finally(() => (refreshing = null))
    await refreshing
    if (again) {
      again = false
      await refresh()
    }
  }

  async function load() {
    try {
      state.view = await api(`/api/plan?plan=${state.plan}`)
      say('')
    } catch (error) {
      say(`cannot read the plan: ${error.message}`)
      return
    }
    render()
  }

  // A view's changes are drawn once per frame however many come (a hidden tab's frames wait: at most 250 ms).
  let drawing = false
  function draw() {
    if (drawing) return
    drawing = true
    const go = () => {
      if (!drawing) return
      drawing = false
      render()
    }
    requestAnimationFrame(go)
    setTimeout(go, 250)
  }

  function render() {
    const view = state.view
    // Only what changed is written: each write is the browser's work while a run goes on.
    const text = (node, value) => node.textContent !== value && (node.textContent = value)
    text($('title'), view.title)
    if (document.title !== `mdplan: ${view.title}`) document.title = `mdplan: ${view.title}`
    const counts = JSON.stringify(view.counts)
    if (state.countsShown !== counts) $('counts').replaceChildren(...Object.entries(view.counts).map(([status, n]) => el('span', {class: `st-${statusClass(status)}`}, `${n} ${status}`)))
    state.countsShown = counts
    const open = view.questions.filter((q) => q.answer === undefined).length
    $('qcount').textContent = open > 0 ? `(${open})` : ''
    renderGrid()
    // Built again only when they changed: an answer being typed is not wiped by a run's progress.
    if (state.questionsShown !== view.questions) renderQuestions()
    state.questionsShown = view.questions
    if (state.tab === 'dag') renderDag()
    if (state.agent) renderDetail()
  }

  function renderGrid() {
    const words = state.filter.toLowerCase().split(/\s+/).filter(Boolean)
    const rows = state.view.agents.filter((a) => words.every((w) => [a.id, a.name, a.status, a.runner, a.host, a.job, a.line].join(' ').toLowerCase().includes(w)))
    const key = state.sort
    rows.sort((a, b) => {
      const x = a[key] ?? ''
      const y = b[key] ?? ''
      const c = typeof x === 'number' && typeof y === 'number' ? x - y : collator.compare(String(x), String(y))
      return (state.desc ? -c : c) || (key === 'rank' ? 0 : a.rank - b.rank)
    })
    // A row is built again only when what it shows changed: a run's write changes a few rows of a thousand.
    const built = (state.rowsBuilt ??= new Map())
    const next = rows.map((a) => {
      const kept = built.get(a.id)
      // The same object: a patch left this agent as it was.
      if (kept && kept.agent === a) return kept.row
      const shown = JSON.stringify([a.id, a.name, a.status, a.since, a.runner, a.host, a.job, a.attempt, a.line, a.review])
      if (kept && kept.shown === shown) return ((kept.agent = a), kept.row)
      const row = agentRow(a)
      if (kept) ticking.delete(kept.row.querySelector('td.since'))
      if (active.has(a.status)) ticking.add(row.querySelector('td.since'))
      built.set(a.id, {shown, row, agent: a})
      return row
    })
    placeRows($('grid').tBodies[0], next)
  }

  // Put `rows` in `body` in that order with the fewest moves: the rows already in order (the longest run of
  // them, in increasing order of where they go) stay; the others, new or moved, are inserted; rows not wanted go.
  function placeRows(body, rows) {
    const want = new Map(rows.map((row, i) => [row, i]))
    const here = []
    for (const node of [...body.children]) {
      if (want.has(node)) here.push(node)
      else node.remove()
    }
    // Longest increasing subsequence of the wanted positions (patience sorting, with back links).
    const tails = []
    const back = new Map()
    for (const node of here) {
      const at = want.get(node)
      let low = 0
      let high = tails.length
      while (low < high) {
        const mid = (low + high) >> 1
        if (want.get(tails[mid]) < at) low = mid + 1
        else high = mid
      }
      back.set(node, low > 0 ? tails[low - 1] : null)
      tails[low] = node
    }
    const stay = new Set()
    for (let node = tails[tails.length - 1] ?? null; node; node = back.get(node)) stay.add(node)
    let anchor = null
    for (let i = rows.length - 1; i >= 0; i--) {
      const row = rows[i]
      if (!stay.has(row)) body.insertBefore(row, anchor)
      anchor = row
    }
  }

  // One collator for every sort: localeCompare with options makes a new one per call (thousands a sort).
  const collator = new Intl.Collator(undefined, {numeric: true})
  // The "For" cells: an active row's ticks each second; a settled row's (completed, failed, pending) shows
  // minutes and is looked at every 30 s. A thousand cells written a second cost the browser more than a run.
  const active = new Set(['in_progress', 'needs_input', 'awaiting_review'])
  const ticking = new Set()
  const since = (a) => el('td', {'data-label': 'For', class: 'since', 'data-since': a.since || ''}, ago(a.since, !active.has(a.status)))
  const tick = (cell, coarse) => {
    const shown = ago(Number(cell.dataset.since), coarse)
    if (cell.textContent !== shown) cell.textContent = shown
  }

  function agentRow(a) {
    return (
        el('tr', {class: 'agent', 'data-agent': a.id, onclick: () => openAgent(a.id)},
          el('td', {'data-label': 'Agent'}, el('strong', {}, a.id), ` ${a.name}`),
          el('td', {'data-label': 'Status'}, el('span', {class: `st st-${statusClass(a.status)}`}, a.status)),
          since(a),
          el('td', {'data-label': 'Runner'}, a.runner),
          el('td', {'data-label': 'Host'}, [a.host, a.job].filter(Boolean).join(' ')),
          el('td', {'data-label': 'Try'}, a.attempt ? String(a.attempt) : ''),
          el('td', {'data-label': 'Note'}, a.line, ...(a.review ? [' ', reviewButton(a.id, 'approve', 'Approve'), ' ', reviewButton(a.id, 'reject', 'Reject…')] : []))
        )
    )
  }

  function renderQuestions() {
    const box = $('questions')
    if (state.view.questions.length === 0) return box.replaceChildren(el('p', {}, 'No open questions.'))
    box.replaceChildren(...state.view.questions.map(questionCard))
  }

  function questionCard(q) {
    const answer = (text) => submitAnswer(q.agent, text)
    const input = el('input', {type: 'text', placeholder: 'Your answer', 'aria-label': `Answer for ${q.agent}`})
    return el('div', {class: 'question', 'data-agent': q.agent},
      el('h3', {}, `${q.agent}: ${q.question}`),
      q.context ? el('pre', {}, q.context) : '',
      el('div', {class: 'options'}, ...q.options.map((option, i) => el('button', {type: 'button', onclick: () => answer(String(i + 1))}, `${i + 1}. ${option}`))),
      q.answer !== undefined ? el('p', {class: 'answered'}, `Answered: ${q.answer}`) : '',
      el('form', {onsubmit: (event) => (event.preventDefault(), input.value.trim() && answer(input.value))}, input, el('button', {type: 'submit'}, 'Answer'))
    )
  }

  async function submitAnswer(agent, text) {
    try {
      const done = await api('/api/answer', {plan: state.plan, agent, answer: text})
      say('')
      $('message').textContent = `${agent}: answered "${done.text}"`
      await refresh()
    } catch (error) {
      say(`${agent}: ${error.message}`)
    }
  }

  async function edit(agent, kind) {
    try {
      await api('/api/edit', {plan: state.plan, agent, edit: kind})
      await refresh()
    } catch (error) {
      say(`${agent}: ${error.message}`)
    }
  }

  // A row awaiting review: approve at once, or open the agent to write the note a rejection sends back.
  function reviewButton(agent, decision, label) {
    const act = (event) => {
      event.stopPropagation()
      if (decision === 'approve') return void review(agent, 'approve')
      openAgent(agent)
      const note = document.querySelector('#detail-edits input[data-review-note]')
      if (note) note.focus()
    }
    return el('button', {type: 'button', class: 'review', 'data-review': decision, onclick: act}, label)
  }

  // What `mdplan review` does: the same hand edit, through the same code on the server.
  async function review(agent, decision, note) {
    try {
      await api('/api/review', {plan: state.plan, agent, decision, ...(decision === 'reject' ? {note} : {})})
      $('message').textContent = ''
      await refresh()
    } catch (error) {
      say(`${agent}: ${error.message}`)
    }
  }

  function reviewForm(a) {
    const kept = document.querySelector(`#detail-edits input[data-review-note="${CSS.escape(a.id)}"]`)
    const input = el('input', {type: 'text', placeholder: 'What to change (sent to the agent)', 'aria-label': `Review note for ${a.id}`, 'data-review-note': a.id})
    if (kept) input.value = kept.value
    return el('form', {class: 'review-form', onsubmit: (event) => (event.preventDefault(), review(a.id, 'reject', input.value))},
      el('button', {type: 'button', 'data-review': 'approve', onclick: () => review(a.id, 'approve')}, 'Approve'),
      input,
      el('button', {type: 'submit', 'data-review': 'reject'}, 'Reject')
    )
  }

  function openAgent(id) {
    state.agent = id
    state.attempt = null
    state.logNext = 0
    $('log').textContent = ''
    $('detail').hidden = false
    renderDetail()
    void pollLog()
  }

  function renderDetail() {
    const a = state.view.agents.find((x) => x.id === state.agent)
    if (!a) return
    $('detail-title').textContent = `${a.id}: ${a.name} (${a.status})`
    $('detail-notes').textContent = a.notes
    const labels = {requeue: 'Re-queue', retry: 'Retry', skip: 'Skip'}
    const edits = a.edits.map((kind) => el('button', {type: 'button', 'data-edit': kind, onclick: () => edit(a.id, kind)}, labels[kind]))
    $('detail-edits').replaceChildren(...(a.review ? [reviewForm(a)] : []), ...edits)
  }

  async function pollLog() {
    const agent = state.agent
    if (!agent) return
    const query = `/api/log?plan=${state.plan}&agent=${encodeURIComponent(agent)}${state.attempt === null ? '' : `&attempt=${state.attempt}&from=${state.logNext}`}`
    try {
      const log = await api(query)
      if (agent !== state.agent) return
      if (state.attempt === null || log.attempt !== state.attempt) {
        state.attempt = log.attempt
        $('log').textContent = ''
      }
      const box = $('log')
      const atEnd = box.scrollTop + box.clientHeight >= box.scrollHeight - 4
      if (log.text) box.append(document.createTextNode(log.text))
      // A long log keeps its last 1 MB in the page: the page stays responsive whatever an agent prints.
      if (box.textContent.length > 1 << 20) box.textContent = box.textContent.slice(-(1 << 19))
      if (atEnd) box.scrollTop = box.scrollHeight
      state.logNext = log.next
      $('detail-attempts').replaceChildren(...log.attempts.map((n) => el('button', {type: 'button', class: n === state.attempt ? 'on' : '', onclick: () => ((state.attempt = n), (state.logNext = 0), ($('log').textContent = ''), pollLog())}, `attempt ${n}`)))
    } catch (error) {
      say(`log of ${agent}: ${error.message}`)
    }
  }

  async function renderDag() {
    const view = state.view
    const drawn = $('dagbox').firstChild
    // The same shape drawn already: a run's progress only recolours it.
    if (state.dagShape === view.shape && drawn && drawn.dataset && drawn.dataset.plan === String(state.plan)) return recolourDag(drawn, view)
    if (state.dagShape !== view.shape) {
      state.dag = await api(`/api/dag?plan=${state.plan}`)
      state.dagShape = view.shape
    }
    const ns = 'http://www.w3.org/2000/svg'
    const svg = (tag, attrs) => {
      const node = document.createElementNS(ns, tag)
      for (const [key, value] of Object.entries(attrs)) node.setAttribute(key, String(value))
      return node
    }
    const byId = new Map(view.agents.map((a) => [a.id, a]))
    const root = svg('svg', {width: state.dag.width, height: state.dag.height, viewBox: `0 0 ${state.dag.width} ${state.dag.height}`})
    for (const e of state.dag.edges) root.append(svg('path', {d: e.points.map((p, i) => `${i ? 'L' : 'M'}${p.x},${p.y}`).join(' ')}))
    for (const n of state.dag.nodes) {
      const a = byId.get(n.id)
      const g = svg('g', {'data-agent': n.id})
      const rect = svg('rect', {x: n.x - n.width / 2, y: n.y - n.height / 2, width: n.width, height: n.height, class: `n-${statusClass(a ? a.status : 'pending')}`})
      rect.addEventListener('click', () => openAgent(n.id))
      const label = svg('text', {x: n.x, y: n.y + 4, 'text-anchor': 'middle'})
      label.textContent = a ? `${a.id}: ${a.name}`.slice(0, 18) : n.id
      const title = svg('title', {})
      title.textContent = a ? `${a.id}: ${a.name} (${a.status})` : n.id
      g.append(rect, label, title)
      root.append(g)
    }
    root.dataset.plan = String(state.plan)
    $('dagbox').replaceChildren(root)
  }

  function recolourDag(drawn, view) {
    const byId = new Map(view.agents.map((a) => [a.id, a]))
    for (const g of drawn.querySelectorAll('g[data-agent]')) {
      const a = byId.get(g.dataset.agent)
      if (!a) continue
      const kind = `n-${statusClass(a.status)}`
      const rect = g.querySelector('rect')
      if (rect.getAttribute('class') !== kind) rect.setAttribute('class', kind)
      g.querySelector('title').textContent = `${a.id}: ${a.name} (${a.status})`
    }
  }

  function showTab(tab) {
    state.tab = tab
    for (const button of document.querySelectorAll('.tabs button')) button.className = button.dataset.tab === tab ? 'on' : ''
    for (const id of ['agents', 'questions', 'dag']) $(id).hidden = id !== tab
    if (tab === 'dag' && state.view) void renderDag()
  }

  // The view as the stream last sent it: what the server's next patch applies to (docs/serve.md).
  const applyPatch = (view, patch) => {
    const changed = new Map(patch.agents.map((a) => [a.id, a]))
    return {
      ...view,
      ...(patch.title !== undefined ? {title: patch.title} : {}),
      agents: changed.size === 0 ? view.agents : view.agents.map((a) => changed.get(a.id) ?? a),
      questions: patch.questions ?? view.questions,
      counts: patch.counts,
      meta: patch.meta
    }
  }

  // The plan shown, as the server streams it: its whole view on (re)connecting, then what changed.
  function listen() {
    if (state.events) state.events.close()
    state.base = null
    const plan = state.plan
    const events = (state.events = new EventSource(`/api/events?plan=${plan}${token ? `&token=${encodeURIComponent(token)}` : ''}`))
    events.onopen = () => (($('live').textContent = 'live'), ($('live').className = 'live on'))
    events.onerror = () => (($('live').textContent = 'reconnecting…'), ($('live').className = 'live'), (state.base = null))
    const take = (view) => {
      if (plan !== state.plan) return
      state.base = state.view = view
      say('')
      draw()
    }
    events.addEventListener('view', (event) => take(JSON.parse(event.data)))
    events.addEventListener('patch', (event) => state.base && take(applyPatch(state.base, JSON.parse(event.data))))
    events.addEventListener('problem', (event) => say(`cannot read the plan: ${JSON.parse(event.data).error}`))
  }

  document.addEventListener('DOMContentLoaded', async () => {
    for (const button of document.querySelectorAll('.tabs button')) button.addEventListener('click', () => showTab(button.dataset.tab))
    for (const th of document.querySelectorAll('th[data-sort]'))
      th.addEventListener('click', () => {
        state.desc = state.sort === th.dataset.sort ? !state.desc : false
        state.sort = th.dataset.sort
        if (state.view) renderGrid()
      })
    $('filter').addEventListener('input', (event) => ((state.filter = event.target.value), state.view && renderGrid()))
    $('detail-close').addEventListener('click', () => (($('detail').hidden = true), (state.agent = null)))
    setInterval(() => {
      for (const cell of ticking) cell.isConnected ? tick(cell, false) : ticking.delete(cell)
      if (++state.ticks % 30 === 0) for (const cell of document.querySelectorAll('td.since')) if (!ticking.has(cell)) tick(cell, true)
      if (state.agent) void pollLog()
    }, 1000)
    await loadPlans()
    listen()
  })
})()
