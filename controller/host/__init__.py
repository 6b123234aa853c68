"""What the processes need of the host they run on: logging (text or JSON, journald priorities), local
time as an operator types and reads it, the install command a missing extra needs, and a wake-up a
signal handler may set."""

from controller.host._install_hint import install_hint
from controller.host._local_time import TIME_FORMS, NotATime, parse_local_time, shown_time
from controller.host._logs import add_log_arguments, configure_logging
from controller.host._wakeup import Wakeup

__all__ = [
    "NotATime",
    "TIME_FORMS",
    "Wakeup",
    "add_log_arguments",
    "configure_logging",
    "install_hint",
    "parse_local_time",
    "shown_time",
]
