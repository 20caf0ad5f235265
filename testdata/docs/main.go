package main

import "fmt"

// main prints a greeting.
func main() {
	fmt.Println("hello, hearth")
}
