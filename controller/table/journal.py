"""The journal's types, kept in :mod:`controller.journal.records` (the journal depends on nothing
above it); imported here too for code that still names this module."""

from controller.journal.records import event_record

__all__ = ["event_record"]
