"""What ``surehand acp`` says to the person and the model, in one place."""

NOT_A_FOLDER = "cwd must be the absolute path of an existing folder"
BUSY = "A prompt is already running in this session: cancel it, or wait for its end."
NO_SESSION = "There is no such session: start one with session/new."
PREVIOUS_TASK_CANCELLED = "The user cancelled the previous task; its changes were discarded."
TESTS_ON_PROPOSAL = "The tests on the proposed change:"
NO_CHANGES = "No changes proposed."
BROKEN_BY_LEAVING_OUT = (
    "Tests fail on what you accepted that pass on the whole proposal: look before you save."
)
ANSWERED_AT_ONCE = (
    "{quick} of {asked} questions were answered sooner than a person reads one: your client "
    'may answer by itself (an "always allow" or "always deny" setting). Accepted that way: '
    "{accepted}."
)
WRITE_REFUSED = "The editor refused to write {path} ({why}): it is as it was."
WRITE_REFUSED_FOR_MODEL = (
    "The editor refused to write {paths}: those files are as they were before your changes."
)
