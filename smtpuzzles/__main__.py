from smtpuzzles.cli import main

raise SystemExit(main())
