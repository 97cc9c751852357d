from sim.cli import main

# Guarded: worker processes started by spawn (dask LocalCluster) import this module.
if __name__ == "__main__":
    main()
