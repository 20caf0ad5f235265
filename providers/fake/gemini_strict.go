package fake

import (
	"encoding/json"
	"fmt"
	"strings"
)

// gemPartFields is a Part (https://ai.google.dev/api/caching#Part).
var gemPartFields = fields{"text": free, "thought": free, "thoughtSignature": free, "partMetadata": free,
	"inlineData": {"mimeType": free, "data": free}, "fileData": {"mimeType": free, "fileUri": free},
	"functionCall":     {"id": free, "name": free, "args": free},
	"functionResponse": {"id": free, "name": free, "response": free, "parts": free, "willContinue": free, "scheduling": free},
	"executableCode":   free, "codeExecutionResult": free, "videoMetadata": free, "mediaResolution": free}

var gemContentFields = fields{"role": free, "parts": gemPartFields}

// gemRequestFields is GenerateContentRequest
// (https://ai.google.dev/api/generate-content#request-body); Gemini
// answers "Unknown name" for anything else.
var gemRequestFields = fields{"model": free, "contents": gemContentFields, "systemInstruction": gemContentFields,
	"cachedContent": free, "safetySettings": {"category": free, "threshold": free},
	"tools": {"functionDeclarations": {"name": free, "description": free, "behavior": free, "parameters": free,
		"parametersJsonSchema": free, "response": free, "responseJsonSchema": free},
		"googleSearch": free, "googleSearchRetrieval": free, "codeExecution": free, "urlContext": free, "fileSearch": free,
		"computerUse": free, "googleMaps": free},
	"toolConfig": {"functionCallingConfig": {"mode": free, "allowedFunctionNames": free}, "retrievalConfig": free},
	"generationConfig": {"stopSequences": free, "responseMimeType": free, "responseSchema": free, "responseJsonSchema": free,
		"responseModalities": free, "candidateCount": free, "maxOutputTokens": free, "temperature": free, "topP": free,
		"topK": free, "seed": free, "presencePenalty": free, "frequencyPenalty": free, "responseLogprobs": free,
		"logprobs": free, "enableEnhancedCivicAnswers": free, "speechConfig": free, "imageConfig": free, "mediaResolution": free,
		"thinkingConfig": {"includeThoughts": free, "thinkingBudget": free, "thinkingLevel": free}},
}

// checkGeminiFields returns Gemini's "Unknown name" message for a key the
// request schema lacks, or "".
func checkGeminiFields(body []byte) string {
	p := gemRequestFields.unknownField("", body)
	if p == "" {
		return ""
	}
	name := p[strings.LastIndex(p, ".")+1:]
	return fmt.Sprintf("Invalid JSON payload received. Unknown name %q at 'GenerateContentRequest.%s': Cannot find field.", name, p)
}

type gemFnPart struct {
	FunctionCall *struct {
		ID   string `json:"id"`
		Name string `json:"name"`
	} `json:"functionCall"`
	FunctionResponse *struct {
		ID   string `json:"id"`
		Name string `json:"name"`
	} `json:"functionResponse"`
}

// checkFunctionResponses enforces the pairing of a step's function calls
// and the responses of the next content: as many responses as calls, each
// naming a function that was called; a response to a call with an id
// carries that id. Gemini 3 pairs parallel calls by id: a step of several
// calls needs an id on every call and every response.
func checkFunctionResponses(model string, body []byte) string {
	var req struct {
		Contents []struct {
			Role  string      `json:"role"`
			Parts []gemFnPart `json:"parts"`
		} `json:"contents"`
	}
	json.Unmarshal(body, &req)
	for i := 0; i+1 < len(req.Contents); i++ {
		var calls, resps []gemFnPart
		for _, p := range req.Contents[i].Parts {
			if p.FunctionCall != nil {
				calls = append(calls, p)
			}
		}
		if len(calls) == 0 || req.Contents[i].Role != "model" {
			continue
		}
		for _, p := range req.Contents[i+1].Parts {
			if p.FunctionResponse != nil {
				resps = append(resps, p)
			}
		}
		if len(resps) != len(calls) {
			return fmt.Sprintf("Please ensure that the number of function response parts is equal to the number of function call parts of the function call turn (content %d: %d calls, %d responses).", i, len(calls), len(resps))
		}
		byID := map[string]string{}
		names := map[string]int{}
		for _, c := range calls {
			if c.FunctionCall.ID != "" {
				byID[c.FunctionCall.ID] = c.FunctionCall.Name
			} else if gemini3(model) && len(calls) > 1 {
				return fmt.Sprintf("* GenerateContentRequest.contents[%d].parts: functionCall.id is required for parallel function calls.", i)
			}
			names[c.FunctionCall.Name]++
		}
		for _, r := range resps {
			fr := r.FunctionResponse
			if names[fr.Name] == 0 {
				return fmt.Sprintf("* GenerateContentRequest.contents[%d].parts: functionResponse.name %q matches no function call.", i+1, fr.Name)
			}
			names[fr.Name]--
			if len(byID) > 0 || (gemini3(model) && len(calls) > 1) {
				if name, ok := byID[fr.ID]; !ok || name != fr.Name {
					return fmt.Sprintf("* GenerateContentRequest.contents[%d].parts: functionResponse.id %q does not match the id of a function call.", i+1, fr.ID)
				}
				delete(byID, fr.ID)
			}
		}
	}
	return ""
}

// gemThoughtTokens is how many thinking tokens the fake spends for a
// request, out of maxOutputTokens: Gemini 2.5 and 3 think by default
// (Gemini 3 at level high, 2.5 with a dynamic budget); a budget of 0 or
// an older model does not think.
func gemThoughtTokens(model string, budget *int, level string) int {
	switch {
	case !gemini3(model) && !strings.HasPrefix(model, "gemini-2.5"):
		return 0
	case budget != nil && *budget >= 0:
		return *budget
	case level != "":
		return map[string]int{"minimal": 128, "low": 1024, "medium": 2048, "high": 4096}[strings.ToLower(level)]
	case gemini3(model):
		return 4096
	}
	return 2048
}
