/** `orca --help`. Kept beside main.ts's command table; a test checks every command is listed. */
export const USAGE = `orca: plans of the opencode-orca-statecharts plugin, from the command line

Usage: orca <command> [arguments] [--dir <project>]

Commands:
  plans                           list the plans, newest first
  show <plan_id>                  goal, steps, outputs, decisions and history of a plan
  decide <plan_id> <decision> [--message <text>] [--step <step_id>]
                                  answer a waiting plan; <decision> is
                                    approve | reject | changes   (plan waiting for approval;
                                                                  changes needs --message)
                                    retry | replan | stop        (a failed step; --step picks
                                                                  the step when several wait)
                                    continue | stop              (a plan paused at its dispatch
                                                                  cap: another as many, or end it)
                                    rerun | done | stop          (a step a restart found
                                                                  interrupted: run it again, or
                                                                  mark it done)
                                    ontop | resolved | stop      (a step whose changes did not
                                                                  apply: run it again on top of
                                                                  your tree, or taken in by hand)
                                    replan | accept | stop       (the plan's verification failed
                                                                  in the project once every step
                                                                  landed)
                                  A server running the plan applies it within a second;
                                  otherwise it applies when the plan is resumed.
  init [--model <provider>/<model>]
                                  add the plugin to opencode.json(c) (from a clone: the file
                                  URL of its built plugin), set "model" (Orca's dialogs need
                                  one), write .opencode/orca.jsonc
  doctor                          check OpenCode, the plugin, its config and the plans
  prune [--drafts-older-than <days>] [--finished-older-than <days>] [--yes]
                                  list the plans that would be removed, with their journals
                                  and inboxes: drafts never approved, unchanged for more than
                                  <days> (default: the prune option's, else 30), and finished
                                  plans (completed, failed, rejected) only when asked. Never a
                                  plan a process runs, an approved plan not finished, or a
                                  quarantined file. A dry run unless --yes
  prune --slots [--yes]           list Orca's worktree slots of the repository (what git
                                  worktree list shows, locked) it would remove: the free
                                  ones and those left by an Orca process that is gone, with
                                  their git worktree entries and folders; never a slot a
                                  step holds. A dry run unless --yes
  diff <plan_id> [--step <step_id>]
                                  what the plan (or the step) landed in your working tree, as
                                  a unified diff (coloured on a terminal; piped, the patches as
                                  they are)
  undo <plan_id> [--step <step_id>]... [--yes]
                                  take what a plan that ended landed (or those steps, with
                                  the steps that depend on them) back out of your working
                                  tree, all or nothing: refused, naming each file and line,
                                  when you changed a landed line since; your other changes,
                                  HEAD, the index and branches stay. A dry run unless --yes
  redo <plan_id> [--yes]          put back what the last undo of the plan took out
  agenda [list|events|show <agendaId>|continue <agendaId>|cancel <agendaId>|clear|pause|resume]
         [--message <reason>]
                                  the agenda: pending items and the next due time (and the
                                  plans its firings started that were interrupted), the
                                  latest bus events, one item with what became of its plan
                                  (show), resume that plan (continue), cancel one item or
                                  every pending one, pause or resume it (a running server
                                  applies the change within a second; with none running it
                                  is written here)
  emit <kind> [--message <text>]  an event on the agenda bus (tests.failed, deploy.done:prod):
                                  a running server fires the items waiting for it; with
                                  none running it is recorded and they fire at its start
  inspect <plan_id> [--port N] [--once]
                                  replay the plan from its journal into the Stately
                                  inspector on 127.0.0.1 (prints the URL; --once exits after)
  ui [--port N]                   the plan viewer in the browser: the plans, the step graph,
                                  live, with the gate buttons of decide; on 127.0.0.1 (prints
                                  the URL with its token; Ctrl-C stops it)

Options:
  --dir <path>       the project (default: the current directory)
  -m, --message <t>  guidance or a note for decide, a reason for agenda cancel|clear,
                     the event's message for emit
  -y, --yes          prune: remove what it lists; undo, redo: do what it says
  --step <id>        decide: the step whose gate it answers; diff: one step's changes;
                     undo: a step to take back (again for more steps)
  --slots            prune: Orca's worktree slots instead of plans
  -h, --help         this text
  -v, --version      the plugin's version

Exit codes: 0 done, 1 refused (no such plan, not waiting for that decision, problems found),
2 usage error (unknown command or option, malformed plan_id).
`;
