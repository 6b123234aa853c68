"""What the processes need of the host they run on: logging (text or JSON, journald priorities), local
time as an operator types and reads it, and the install command a missing extra needs."""

from controller.host._install_hint import install_hint
from controller.host._local_time import TIME_FORMS, NotATime, parse_local_time, shown_time
from controller.host._logs import add_log_arguments, configure_logging

__all__ = [
    "NotATime",
    "TIME_FORMS",
    "add_log_arguments",
    "configure_logging",
    "install_hint",
    "parse_local_time",
    "shown_time",
]
