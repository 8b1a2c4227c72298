import { SingleBar } from 'cli-progress';
import { idPath, revisionOf, type Api } from './api';
import type { RemoteContext } from './context';
import { REMOTE_EXIT, RefusedFailure, TransportFailure } from './failures';
import type { HttpAnswer } from './http-client';
import { jsonOf } from './http-client';
import { stepLine, type Step } from './plan';

/** From this many steps on, a terminal shows a progress bar instead of one line per step. */
export const PROGRESS_BAR_FROM = 20;

async function carryOut(api: Api, step: Step): Promise<HttpAnswer> {
  const path = `/ws/${step.kind}`;
  const id = idPath(step.id);
  switch (step.action) {
    case 'add':
      return api.pap('POST', path, { body: step.xml, contentType: 'application/xml', sentFile: step.file });
    case 'replace':
      return api.pap('PUT', `${path}/${id}`, { body: step.xml, contentType: 'application/xml', sentFile: step.file });
    case 'deploy': {
      const answer = await api.pap('POST', `${path}/${id}/deploy`);
      if (jsonOf(answer) !== true) throw new RefusedFailure([`no ${step.kind} \`${step.id}\` to deploy`]);
      return answer;
    }
    case 'revoke':
      return api.pap('POST', `${path}/${id}/revoke`);
    case 'remove':
      return api.pap('DELETE', `${path}/${id}`);
  }
}

/**
 * Carries out the steps in order. The first failure stops the run, and the report says which steps were done, which
 * failed and why, and which were not attempted, so the user can fix the cause and apply again.
 */
export async function runPlan(api: Api, steps: readonly Step[], context: RemoteContext): Promise<number> {
  const bar = context.stdoutIsTTY && steps.length >= PROGRESS_BAR_FROM
    ? new SingleBar({ stream: context.progressStream, format: 'applying [{bar}] {value}/{total} {step}', hideCursor: true })
    : undefined;
  bar?.start(steps.length, 0, { step: '' });
  let revision: number | undefined;
  for (const [index, step] of steps.entries()) {
    try {
      bar?.update(index, { step: step.id });
      const answer = await carryOut(api, step);
      revision = revisionOf(answer) ?? revision;
      if (bar) bar.update(index + 1, { step: step.id });
      else context.out(`done    ${stepLine(step)}\n`);
    } catch (error) {
      bar?.stop();
      if (!(error instanceof RefusedFailure || error instanceof TransportFailure)) throw error;
      const reasons = error instanceof RefusedFailure ? error.lines : [error.message];
      context.err(`failed  ${stepLine(step)}\n`);
      for (const line of reasons) context.err(`  ${line}\n`);
      context.err(`${index} of ${steps.length} steps done${bar ? '' : ' (listed above)'}\n`);
      if (bar) for (const done of steps.slice(0, index)) context.err(`  done    ${stepLine(done)}\n`);
      context.err('not done:\n');
      for (const rest of steps.slice(index)) context.err(`  ${stepLine(rest)}\n`);
      return error.exitCode;
    }
  }
  bar?.stop();
  context.out(`applied ${steps.length} step${steps.length === 1 ? '' : 's'}${revision === undefined ? '' : ` (policy revision ${revision})`}\n`);
  return REMOTE_EXIT.ok;
}
