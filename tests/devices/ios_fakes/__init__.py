"""Fakes for the iOS driver's tests: pymobiledevice3 (the phone that is not here) and the Swift
agent in host mode standing in for the runner on the phone."""
