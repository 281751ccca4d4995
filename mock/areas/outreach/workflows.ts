/**
 * Workflows (spec: Rules of the named resources: Workflows): read, create, pause/activate and delete
 * by workflow_id; the step graph is not editable through the API. Reads work on any plan; the
 * pipeline's plan gate answers 403 to a toggle below the Scale plan.
 */
import type { ShopData, Workflow } from '../../../fixtures/types.ts'
import { defineHandler } from '../../context.ts'
import { apiError } from '../../respond.ts'
import { deleteById, findRecord, newId, nonBlank } from './common.ts'
import { shopScope } from '../../lib/shop.ts'

type StoredWorkflow = Workflow & { updated_at?: string }

const workflowView = (w: StoredWorkflow) => ({ ...w, updated_at: w.updated_at ?? w.created_at })

const findWorkflow = (data: ShopData, workflowId: string): StoredWorkflow => findRecord(data.workflows, 'workflow_id', workflowId, 'workflow')

const listWorkflows = defineHandler('listWorkflows', (ctx) => {
  const { data } = shopScope(ctx)
  const status = ctx.input.status
  const workflows = data.workflows.filter((w) => status === undefined || w.status === status).map(workflowView)
  return { status: 200, body: { data: { workflows, total_count: workflows.length } } }
})

const getWorkflow = defineHandler('getWorkflow', (ctx) => ({ status: 200, body: { data: workflowView(findWorkflow(shopScope(ctx).data, ctx.input.workflow_id)) } }))

// A new workflow starts paused unless `active: true`.
const createWorkflow = defineHandler('createWorkflow', (ctx) => {
  const { shopId, data } = shopScope(ctx)
  const { input } = ctx
  const name = nonBlank(input.name)
  if (input.name !== undefined && !name) throw apiError(400, 'name must not be blank')
  const now = ctx.now.toISOString()
  const workflow: StoredWorkflow = {
    workflow_id: newId(ctx, shopId, 'workflow'),
    name: name ?? null,
    status: input.active === true ? 'active' : 'paused',
    trigger: input.trigger,
    steps: input.steps ?? [],
    created_at: now,
    updated_at: now,
  }
  data.workflows.push(workflow)
  return { status: 201, body: { data: workflowView(workflow) } }
})

// `active` sets the state; without it the state flips (pause <-> activate).
const toggleWorkflow = defineHandler('toggleWorkflow', (ctx) => {
  const workflow = findWorkflow(shopScope(ctx).data, ctx.input.workflow_id)
  const active = typeof ctx.input.active === 'boolean' ? ctx.input.active : workflow.status !== 'active'
  workflow.status = active ? 'active' : 'paused'
  workflow.updated_at = ctx.now.toISOString()
  return { status: 200, body: { data: workflowView(workflow) } }
})

const deleteWorkflow = defineHandler('deleteWorkflow', deleteById((data) => data.workflows, 'workflow_id', 'workflow'))

export const workflowHandlers = { listWorkflows, getWorkflow, createWorkflow, toggleWorkflow, deleteWorkflow }
