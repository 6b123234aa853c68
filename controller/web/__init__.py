"""Web views of the tables: the live table view (``tablectl run|bench --web``) and the pit view
(``tablectl floor web``). Views only read state; on a bench table the page's controls drive the
simulated devices, so every action reaches the controller as a device's wire event."""
