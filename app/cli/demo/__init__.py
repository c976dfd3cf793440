"""What ``paperboy demo`` runs beside Paperboy: a replay of recorded arXiv responses and a
local mail sink (both on free ports on 127.0.0.1, both gone when the demo ends)."""
