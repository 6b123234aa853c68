"""Serial device drivers (card shoe/shuffler, bet spots, dealer panel) over pyserial.

Layers, each using only the one below (docs/protocol.md): ``transport`` (ports by pyserial URL),
``framing`` (COBS frames with CRC-16), ``link`` (polling, retries, exactly-once events, link
supervision), and one driver per device class (``shoe``, ``bet_spots``, ``panel``), chosen by
name through ``registry``. Drivers turn bytes into typed events and commands into bytes; they
never import game rules.
"""
