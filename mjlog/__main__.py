from mjlog.cli import main

main()
