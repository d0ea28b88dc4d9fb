"""One package per game: ``qdv`` (Qui dit vrai ?), ``legumes`` and ``veru``."""
