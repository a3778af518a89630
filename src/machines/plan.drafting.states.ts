import { decision } from './plan-decisions.js';
import { changesRequestedMessage } from './plan-text.js';
import { planSetup, plannerDone, plannerFailed } from './plan.setup.js';

/**
 * The plan chart's drafting and approval states: the planner's session opened and consulted (an
 * answer, questions for the person, or a plan), the approval gate, and the planner revising the plan
 * when the person requests changes. The states read the same in plan.machine.ts; the chart is unchanged.
 */

/**
 * Tag `workspaces.prepare` (here, at the approval gate and while changes are requested): no step
 * runs yet, its worktrees can be made. Tag `workspaces.warm` (at the approval gate only): a person
 * reads the plan, so the time their OpenCode instances take to start is time nobody waits on.
 */
export const drafting = planSetup.createStateConfig({
  tags: ['workspaces.prepare'],
  initial: 'routing',
  states: {
    routing: {
      always: [{ guard: 'hasPlannerSession', target: 'consulting' }, { target: 'opening_session' }],
    },
    opening_session: {
      tags: ['busy'],
      invoke: {
        id: 'openPlannerSession',
        src: 'openPlannerSession',
        input: ({ context }) => ({ planId: context.plan_id, callerSessionId: context.caller_session_id }),
        onDone: {
          target: 'consulting',
          actions: { type: 'recordPlannerSession', params: ({ event }) => event.output },
        },
        onError: plannerFailed,
      },
    },
    consulting: {
      tags: ['busy'],
      invoke: {
        id: 'consultPlanner',
        src: 'consultPlanner',
        input: ({ context }) => ({
          planId: context.plan_id,
          sessionId: context.planner_session_id!,
          message: context.pending_message ?? context.request,
        }),
        onDone: plannerDone,
        onError: plannerFailed,
      },
    },
    answered: {
      tags: ['outcome.answer'],
      on: { 'plan.message': { target: 'routing', actions: { type: 'takeMessage', params: ({ event }) => event } } },
    },
    awaiting_answers: {
      tags: ['gate.question'],
      on: {
        'question.answer': {
          target: 'routing',
          actions: [
            {
              type: 'recordDecision',
              params: ({ event }) => decision('question', event.answers.map((a) => a.join(', ')).join(' | '), event),
            },
            { type: 'answerQuestions', params: ({ event }) => event },
          ],
        },
        'plan.message': { target: 'routing', actions: { type: 'takeMessage', params: ({ event }) => event } },
      },
    },
    planner_failed: {
      tags: ['outcome.failure'],
      on: { 'plan.message': { target: 'routing', actions: { type: 'takeMessage', params: ({ event }) => event } } },
    },
  },
});

/** Approve, Request Changes (with the person's guidance for the planner) or Reject. */
export const pendingApproval = planSetup.createStateConfig({
  tags: ['gate.approval', 'workspaces.prepare', 'workspaces.warm'],
  on: {
    'approval.approve': {
      target: 'approved',
      actions: { type: 'recordDecision', params: ({ event }) => decision('approval', 'Approve', event) },
    },
    'approval.request_changes': {
      guard: { type: 'hasGuidance', params: ({ event }) => event },
      target: 'changes_requested',
      actions: [
        { type: 'recordDecision', params: ({ event }) => decision('approval', 'Request Changes', event) },
        { type: 'takeMessage', params: ({ event }) => ({ message: changesRequestedMessage(event.text) }) },
      ],
    },
    'approval.reject': {
      target: 'rejected',
      actions: [
        { type: 'recordDecision', params: ({ event }) => decision('approval', 'Reject', event) },
        { type: 'setOutcome', params: { outcome: 'rejected' } },
      ],
    },
  },
});

/** The planner revises the plan with the person's guidance; it comes back to the approval gate. */
export const changesRequested = planSetup.createStateConfig({
  tags: ['busy', 'workspaces.prepare'],
  invoke: {
    id: 'revisePlan',
    src: 'consultPlanner',
    input: ({ context }) => ({
      planId: context.plan_id,
      sessionId: context.planner_session_id!,
      message: context.pending_message ?? '',
    }),
    onDone: plannerDone,
    onError: plannerFailed,
  },
});
