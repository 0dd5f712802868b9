"""``python -m streamt``: the same CLI as the ``streamt`` console script."""

from streamt.cli import main

if __name__ == "__main__":
    main()
