/**
 * Workflows (spec: Rules of the named resources: Workflows): read, create, pause/activate and delete
 * by workflow_id; the step graph is not editable through the API. Reads work on any plan; the
 * pipeline's plan gate answers 403 to a toggle below the Scale plan.
 */
import { defineHandler, type DeepReadonly, type ShopContext } from '../../context.ts'
import { apiError } from '../../respond.ts'
import { deleteById, findRecord, nonBlank } from './common.ts'
import { outreachRecords, outreachState, type StoredWorkflow } from '../../lib/outreach.ts'

const workflowView = (w: DeepReadonly<StoredWorkflow>) => ({ ...w, updated_at: w.updated_at ?? w.created_at })

const findWorkflow = (ctx: ShopContext, workflowId: string) => findRecord(ctx.state, ctx.shop.shop_id, 'workflows', workflowId, 'workflow')

const listWorkflows = defineHandler('listWorkflows', (ctx) => {
  const status = ctx.input.status
  const workflows = outreachRecords(ctx.state, ctx.shop.shop_id).workflows.filter((w) => status === undefined || w.status === status).map(workflowView)
  return { status: 200, body: { data: { workflows, total_count: workflows.length } } }
})

const getWorkflow = defineHandler('getWorkflow', (ctx) => ({ status: 200, body: { data: workflowView(findWorkflow(ctx, ctx.input.workflow_id)) } }))

// A new workflow starts paused unless `active: true`.
const createWorkflow = defineHandler('createWorkflow', (ctx) => {
  const { input } = ctx
  const name = nonBlank(input.name)
  if (input.name !== undefined && !name) throw apiError(400, 'name must not be blank')
  const workflow = ctx.state.write(outreachState, 'createWorkflow', {
    shopId: ctx.shop.shop_id,
    name: name ?? null,
    status: input.active === true ? 'active' : 'paused',
    trigger: input.trigger,
    steps: input.steps ?? [],
    now: ctx.now.toISOString(),
  })
  return { status: 201, body: { data: workflowView(workflow) } }
})

// `active` sets the state; without it the state flips (pause <-> activate).
const toggleWorkflow = defineHandler('toggleWorkflow', (ctx) => {
  const workflow = findWorkflow(ctx, ctx.input.workflow_id)
  const active = typeof ctx.input.active === 'boolean' ? ctx.input.active : workflow.status !== 'active'
  const toggled = ctx.state.write(outreachState, 'setWorkflowStatus', { shopId: ctx.shop.shop_id, id: workflow.workflow_id, status: active ? 'active' : 'paused', now: ctx.now.toISOString() })
  return { status: 200, body: { data: workflowView(toggled) } }
})

const deleteWorkflow = defineHandler('deleteWorkflow', deleteById('workflows', 'workflow'))

export const workflowHandlers = { listWorkflows, getWorkflow, createWorkflow, toggleWorkflow, deleteWorkflow }
