"""The tools that write parts of ``docs/`` from the machines themselves: the dealer guide
(``python -m controller.docgen.guide``) and the state diagrams (``tablectl diagram``)."""
