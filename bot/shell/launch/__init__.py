"""Programs that run other programs (``env``, ``timeout``, ``xargs``, ``find -exec``, ``npx``,
``git -c alias…``): finding the command they launch so it is judged like any other.
"""
