from grader.judge.run import main

main()
