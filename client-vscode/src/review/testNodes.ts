/**
 * The tests' verdict on the proposal in the "Surehand: Changes" view: a
 * row above the files with the headline (`tests: 1 failed`), the command,
 * what it ran on and how it was contained, the verdict's whole sentence in
 * its tooltip; under it the failing tests' names (with several test
 * commands, a row for each command, its failing tests under it). Collapsed:
 * the files stay in view. Free of the `vscode` module.
 */

import {
  failingNames,
  headlineLabel,
  overall,
  shortWords,
  verdictLine,
  type TestsParams,
  type Verdict,
  type VerdictStatus,
} from '../verdicts';
import { visibleLabel } from '../visible';

export interface TestNode {
  readonly kind: 'tests' | 'verdict' | 'failing';
  /** `tests`, `tests/<verdict>`, `tests/<verdict>/<name>`: a parent's id is its child's up to the last `/`. */
  readonly id: string;
  readonly label: string;
  readonly description: string;
  readonly tooltip: string;
  readonly status: VerdictStatus;
  /** Shown open (a command's row that holds failing tests, under the headline's row, which never is). */
  readonly open: boolean;
  readonly children: readonly TestNode[];
}

/** How a verdict was come to, in a few words: where it ran, or why it did not. */
function how(verdict: Verdict): string {
  if (verdict.status === 'not_run' || verdict.status === 'stale' || verdict.run === null) {
    return verdict.why;
  }
  const by = verdict.run.ranBy === 'model' ? 'the model' : verdict.run.ranBy;
  return [by === '' ? '' : `run by ${by}`, verdict.run.where].filter(Boolean).join(', ');
}

function failingNodes(verdict: Verdict, parent: string): TestNode[] {
  return failingNames(verdict).map((name, i) => ({
    kind: 'failing',
    id: `${parent}/${i}`,
    label: visibleLabel(name),
    description: 'failed',
    tooltip: `${name}: failed\n${verdictLine(verdict)}`,
    status: 'failed',
    open: false,
    children: [],
  }));
}

/**
 * The node for a proposal's verdict (none without verdicts). One test
 * command: its failing tests right under the headline; several: a node per
 * command, with its failing tests under it.
 */
export function testNodes(tests: Pick<TestsParams, 'headline' | 'verdicts'>): TestNode[] {
  const verdicts = tests.verdicts;
  if (verdicts.length === 0) {
    return [];
  }
  const lines = verdicts.map(verdictLine);
  const only = verdicts.length === 1 ? verdicts[0] : undefined;
  const children =
    only !== undefined
      ? failingNodes(only, 'tests')
      : verdicts.map((verdict, i): TestNode => {
          const names = failingNodes(verdict, `tests/${i}`);
          return {
            kind: 'verdict',
            id: `tests/${i}`,
            label: visibleLabel(verdict.command),
            description: [shortWords(verdict), visibleLabel(how(verdict))].filter(Boolean).join(' · '),
            tooltip: lines[i],
            status: verdict.status,
            open: names.length > 0,
            children: names,
          };
        });
  const description =
    only !== undefined ? [`${visibleLabel(only.command)} on the proposed change`, visibleLabel(how(only))] : ['on the proposed change'];
  return [
    {
      kind: 'tests',
      id: 'tests',
      label: headlineLabel(tests),
      description: description.filter(Boolean).join(' · '),
      tooltip: lines.join('\n'),
      status: overall(verdicts),
      open: false,
      children,
    },
  ];
}

/** The node with `id` among `nodes` and their children. */
export function findTestNode(nodes: readonly TestNode[], id: string): TestNode | undefined {
  for (const node of nodes) {
    if (node.id === id) {
      return node;
    }
    const found = id.startsWith(`${node.id}/`) ? findTestNode(node.children, id) : undefined;
    if (found !== undefined) {
      return found;
    }
  }
  return undefined;
}

/** The parent of the node with `id` (undefined for the headline). */
export function testParent(nodes: readonly TestNode[], id: string): TestNode | undefined {
  const cut = id.lastIndexOf('/');
  return cut < 0 ? undefined : findTestNode(nodes, id.slice(0, cut));
}
