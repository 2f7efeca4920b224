output.resultWithParameters = 'Hello, ' + parameter + '!'
