"""Adapters to the ecosystem: PettingZoo AEC envs, OpenSpiel Python games, one-game play.

``pettingzoo`` and ``openspiel`` need the optional extra ``adapters``
(``pip install -e '.[adapters]'``); ``single`` (one game on the scalar reference
engine, which the differential tests pin to the vectorised one) needs nothing.
"""
